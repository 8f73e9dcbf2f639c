/**
 * A4 documents for people to keep: tagged (a structure tree in reading order: headings, paragraphs, tables), with
 * DejaVu Sans embedded and subset (so £ and names outside ASCII render and stay selectable), and the same bytes for
 * the same content and creation time (no random id: pdfkit derives the file id from the info dictionary).
 *
 * Whatever the tenant or the platform typed goes in as text drawn with the embedded font (glyph ids in hex), never
 * into the file's structure; long text wraps within its column, breaking inside a word when it must.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

const require = createRequire(import.meta.url);

interface ParsedFont {
  hasGlyphForCodePoint(codePoint: number): boolean;
  /** fontkit's glyphs made so far, each with the characters it was first made for. */
  _glyphs: Record<number, unknown>;
}

/**
 * The fonts, from the `dejavu-fonts-ttf` package (a runtime dependency), read and parsed once per process: parsing
 * them was most of a statement's time. Each document embeds its own subset of the glyphs it uses.
 */
const FONTS = (() => {
  let loaded: { Regular: ParsedFont; Bold: ParsedFont } | undefined;
  const fontkit = require('fontkit') as { create(bytes: Buffer): ParsedFont };
  const parsed = (file: string) =>
    fontkit.create(fs.readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`)));
  return () => {
    loaded ??= { Regular: parsed('DejaVuSans.ttf'), Bold: parsed('DejaVuSans-Bold.ttf') };
    return loaded;
  };
})();

type FontName = 'Regular' | 'Bold';

/** Variation selectors and tags: they only choose how the character before them looks (an emoji's): left out. */
function invisible(codePoint: number): boolean {
  return (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0xe0000 && codePoint <= 0xe007f);
}

/**
 * `text` as the font can draw it: a character it lacks (most emoji) becomes U+FFFD, a visible "�" that a text
 * extractor reads as such, instead of an empty box whose meaning would depend on what was drawn before.
 */
function drawable(text: string, font: ParsedFont): string {
  let out = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0)!;
    if (invisible(codePoint)) continue;
    out += font.hasGlyphForCodePoint(codePoint) || /\s/.test(character) ? character : '\ufffd';
  }
  return out;
}

const MARGIN = 50;
const BODY_SIZE = 10;
const SMALL_SIZE = 8.5;
const CELL_GAP = 10;
const ROW_PADDING = 3;
const RULE_COLOUR = '#c8c8c8';
const MUTED = '#555555';

type Struct = PDFKit.PDFStructureElement;

/** A table's column: its share of the line's width and how its text aligns. */
export interface Column {
  width: number;
  align?: 'left' | 'right';
}

export interface PdfMeta {
  title: string;
  subject: string;
  /** The creation time written into the file (the generation time, from the clock). */
  createdAt: Date;
}

/** One document being written top to bottom; `finish` returns its bytes. */
export class PdfWriter {
  readonly #doc: PDFKit.PDFDocument;
  readonly #root: Struct;
  readonly #chunks: Buffer[] = [];
  readonly #done: Promise<Buffer>;

  constructor(meta: PdfMeta) {
    const fonts = FONTS();
    // Shaping changes the characters a cached glyph records, and pdfkit maps each glyph back to text (what a reader
    // copies) by them: each document starts from no glyphs, so its text never depends on documents made before. A
    // document is drawn and ended without waiting (its bytes are only collected after), so none shares them at once.
    fonts.Regular._glyphs = {};
    fonts.Bold._glyphs = {};
    this.#doc = new PDFDocument({
      size: 'A4',
      margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
      pdfVersion: '1.7',
      tagged: true,
      lang: 'en-GB',
      displayTitle: true,
      info: {
        Title: meta.title,
        Subject: meta.subject,
        Author: 'rentpay',
        Creator: 'rentpay',
        Producer: 'rentpay',
        CreationDate: meta.createdAt,
        ModDate: meta.createdAt,
      },
    });
    this.#done = new Promise((resolve, reject) => {
      this.#doc.on('data', (chunk: Buffer) => this.#chunks.push(chunk));
      this.#doc.on('end', () => resolve(Buffer.concat(this.#chunks)));
      this.#doc.on('error', reject);
    });
    // pdfkit takes a parsed fontkit font as well as bytes (its typings name only the bytes).
    this.#doc.registerFont('Regular', fonts.Regular as unknown as Buffer);
    this.#doc.registerFont('Bold', fonts.Bold as unknown as Buffer);
    this.#doc.font('Regular').fontSize(BODY_SIZE).fillColor('black');
    this.#root = this.#doc.struct('Document');
    this.#doc.addStructure(this.#root);
  }

  get #width(): number {
    return this.#doc.page.width - MARGIN * 2;
  }

  /** Starts a new page when less than `height` is left on this one. */
  #room(height: number): void {
    if (this.#doc.y + height > this.#doc.page.height - MARGIN) {
      this.#doc.addPage();
      this.#doc.y = MARGIN;
    }
  }

  #block(
    type: string,
    font: FontName,
    size: number,
    given: string,
    options: { colour?: string; gap?: number },
  ): void {
    const doc = this.#doc;
    const text = drawable(given, FONTS()[font]);
    doc.font(font).fontSize(size);
    const height = doc.heightOfString(text, { width: this.#width });
    this.#room(height);
    const y = doc.y;
    this.#root.add(
      doc.struct(type, {}, () => {
        doc.fillColor(options.colour ?? 'black').text(text, MARGIN, y, { width: this.#width });
      }),
    );
    doc.fillColor('black');
    doc.y = y + height + (options.gap ?? 4);
  }

  heading(text: string, level: 1 | 2 = 1): this {
    if (level === 2) this.#doc.y += 8;
    this.#block(`H${level}`, 'Bold', level === 1 ? 18 : 12, text, { gap: level === 1 ? 8 : 4 });
    return this;
  }

  paragraph(text: string, options: { small?: boolean } = {}): this {
    this.#block('P', 'Regular', options.small ? SMALL_SIZE : BODY_SIZE, text, {
      ...(options.small ? { colour: MUTED } : {}),
    });
    return this;
  }

  /**
   * Label and value pairs as a table of two columns (each label the header of its row), e.g. a receipt's details.
   * `bold` rows stand out (a total); `labelShare`: the labels' part of the line's width; `amounts`: the values are
   * money, aligned at the line's end.
   */
  details(
    rows: readonly { label: string; value: string; bold?: boolean }[],
    options: { labelShare?: number; amounts?: boolean } = {},
  ): this {
    const table = this.#table();
    const share = options.labelShare ?? (options.amounts ? 0.7 : 0.35);
    const columns: Column[] = [
      { width: share },
      { width: 1 - share, align: options.amounts ? 'right' : 'left' },
    ];
    for (const row of rows) {
      this.#row(table, [row.label, row.value], columns, { header: 'first', bold: row.bold === true });
    }
    table.end();
    return this;
  }

  /** A table with a header row; each row's cells in column order. Rows never split across pages. */
  table(columns: readonly (Column & { title: string })[], rows: readonly string[][]): this {
    const table = this.#table();
    this.#row(
      table,
      columns.map((column) => column.title),
      columns,
      { header: 'all', bold: true },
    );
    for (const cells of rows) this.#row(table, cells, columns, { header: 'none', bold: false });
    table.end();
    return this;
  }

  #table(): Struct {
    const table = this.#doc.struct('Table');
    this.#root.add(table);
    this.#doc.y += 2;
    return table;
  }

  #row(
    table: Struct,
    given: readonly string[],
    columns: readonly Column[],
    style: { header: 'all' | 'first' | 'none'; bold: boolean },
  ): void {
    const doc = this.#doc;
    const font: FontName = style.bold ? 'Bold' : 'Regular';
    const cells = given.map((cell) => drawable(cell, FONTS()[font]));
    doc.font(font).fontSize(BODY_SIZE);
    const widths = columns.map((column) => column.width * this.#width - CELL_GAP);
    const height =
      Math.max(...cells.map((cell, i) => doc.heightOfString(cell, { width: widths[i]! }))) + ROW_PADDING * 2;
    this.#room(height);
    const top = doc.y;
    const row = doc.struct('TR');
    table.add(row);
    let x = MARGIN;
    cells.forEach((cell, i) => {
      const column = columns[i]!;
      const isHeader = style.header === 'all' || (style.header === 'first' && i === 0);
      const left = x;
      row.add(
        doc.struct(isHeader ? 'TH' : 'TD', {}, () => {
          doc.text(cell, left, top + ROW_PADDING, { width: widths[i]!, align: column.align ?? 'left' });
        }),
      );
      x += column.width * this.#width;
    });
    row.end();
    this.#rule(top + height);
    doc.x = MARGIN;
    doc.y = top + height;
  }

  /** A thin line under a row: decoration, marked as an artifact so readers and extractors skip it. */
  #rule(y: number): void {
    const doc = this.#doc;
    doc.markContent('Artifact', { type: 'Layout' });
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + this.#width, y)
      .lineWidth(0.5)
      .strokeColor(RULE_COLOUR)
      .stroke();
    doc.endMarkedContent();
  }

  async finish(): Promise<Buffer> {
    this.#root.end();
    this.#doc.end();
    return this.#done;
  }
}
