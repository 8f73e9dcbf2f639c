import type { FastifyPluginAsync } from 'fastify';

/** A minimal valid one-page PDF, so a local sandbox can onboard with an agreement URL it can actually fetch. */
function samplePdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const text = 'BT /F1 18 Tf 72 770 Td (rentpay sandbox: sample tenancy agreement) Tj ET';
  objects[3] = `<< /Length ${text.length} >>\nstream\n${text}\nendstream`;
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

const SAMPLE_AGREEMENT = samplePdf();
export const SAMPLE_AGREEMENT_PATH = '/sandbox/documents/sample-agreement.pdf';

/**
 * The sandbox's own sample documents by URL (under its PUBLIC_URL), so a local trial's onboarding gets its
 * agreement stored without lifting the address rule for every private host (ALLOW_PRIVATE_DOCUMENT_HOSTS).
 */
export function sandboxSampleDocument(publicUrl: string): (url: string) => Buffer | undefined {
  const sample = new URL(SAMPLE_AGREEMENT_PATH, publicUrl).toString();
  return (url) => (url === sample ? SAMPLE_AGREEMENT : undefined);
}

/** Sandbox only: sample documents to point onboarding at when trying rentpay locally. */
export const sandboxDocuments: FastifyPluginAsync = async (app) => {
  app.get(SAMPLE_AGREEMENT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'application/pdf').send(SAMPLE_AGREEMENT),
  );
};
