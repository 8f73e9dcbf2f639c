import type { FastifyReply } from 'fastify';

/** The 200 of a route that answers a stored file's bytes (a document): its OpenAPI response, new for each route. */
export function storedFileResponse() {
  return {
    description: 'The stored bytes.',
    content: {
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
      'image/jpeg': { schema: { type: 'string', format: 'binary' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
    },
  };
}

/**
 * Answers a stored file: its bytes as they are, its content type, its SHA-256 as the ETag, kept by no cache and
 * never sniffed as another type.
 */
export function sendStoredFile(
  reply: FastifyReply,
  file: { bytes: Buffer; contentType: string; sha256: string },
): FastifyReply {
  return (
    reply
      .type(file.contentType)
      .header('etag', `"${file.sha256}"`)
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      // Bytes go out as they are (Fastify serialises objects only); the type provider reads the binary schema as a string.
      .send(file.bytes as unknown as string)
  );
}

/** The 200 of a route that answers a PDF it made: its OpenAPI response. */
export function pdfResponse(description: string) {
  return { description, content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } };
}

/**
 * Answers a PDF made for this request, to be saved as `filename` (letters, digits, `.`, `-` and `_` only), kept by
 * no cache.
 */
export function sendPdf(reply: FastifyReply, bytes: Buffer, filename: string): FastifyReply {
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .send(bytes as unknown as string);
}
