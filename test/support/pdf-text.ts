/** What a PDF says, as a text extractor reads it (pdf.js through unpdf): its pages' text, and a few facts. */
import assert from 'node:assert/strict';
import { extractText, getDocumentProxy } from 'unpdf';
import { send } from './api-client.ts';
import type { TestApp } from './helpers.ts';

export interface PdfText {
  pages: number;
  /** Every page's text, in reading order, one line per line of text; pages joined by a blank line. */
  text: string;
  title: string | undefined;
  bytes: Buffer;
}

export async function pdfText(bytes: Buffer): Promise<PdfText> {
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'a PDF');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  const { info } = (await pdf.getMetadata()) as { info: { Title?: string } };
  await pdf.cleanup();
  return { pages: totalPages, text: text.join('\n\n'), title: info.Title, bytes };
}

/** GETs a PDF through HTTP, asserting a 200 with a PDF attachment; its text. */
export async function fetchPdf(t: TestApp, url: string, headers: Record<string, string>): Promise<PdfText> {
  const response = await t.app.inject({ method: 'GET', url, headers });
  if (response.statusCode !== 200) {
    assert.fail(
      `GET ${url}: ${response.statusCode} ${(await send(t, { method: 'GET', url, headers })).body}`,
    );
  }
  assert.equal(response.headers['content-type'], 'application/pdf');
  assert.match(String(response.headers['content-disposition']), /^attachment; filename="[\w.-]+\.pdf"$/);
  assert.equal(response.headers['cache-control'], 'private, no-store');
  return pdfText(response.rawPayload);
}

/** The parts of `text` in this order, each after the one before; a line break counts as a space (text wraps). */
export function assertInOrder(text: string, parts: readonly string[]): void {
  const flat = text.replace(/\s+/g, ' ');
  let from = 0;
  for (const part of parts.map((p) => p.replace(/\s+/g, ' '))) {
    const at = flat.indexOf(part, from);
    assert.ok(at >= 0, `"${part}" after position ${from} in:\n${text}`);
    from = at + part.length;
  }
}
