export const DOCUMENT_KINDS = ['agreement', 'pii_front', 'pii_back', 'photo'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export type DetectedContentType = 'application/pdf' | 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif';

const KIND_NAMES: Record<DocumentKind, string> = {
  agreement: 'agreement',
  pii_front: 'front of the identity document',
  pii_back: 'back of the identity document',
  photo: 'photo',
};

function startsWith(bytes: Uint8Array, prefix: string, offset = 0): boolean {
  if (bytes.length < offset + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    if (bytes[offset + i] !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

/** What the bytes are, by their signature; the host's Content-Type header says only what it claims. */
export function detectContentType(bytes: Uint8Array): DetectedContentType | undefined {
  if (startsWith(bytes, '%PDF-')) return 'application/pdf';
  if (startsWith(bytes, '\xff\xd8\xff')) return 'image/jpeg';
  if (startsWith(bytes, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) return 'image/webp';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'image/gif';
  return undefined;
}

export type ContentCheck = { ok: true; contentType: DetectedContentType } | { ok: false; reason: string };

/** The agreement must be a PDF; identity documents and the photo may also be a JPEG, PNG, WebP or GIF image. */
export function checkDocumentContent(kind: DocumentKind, bytes: Uint8Array): ContentCheck {
  const contentType = detectContentType(bytes);
  if (kind === 'agreement') {
    return contentType === 'application/pdf'
      ? { ok: true, contentType }
      : { ok: false, reason: 'The agreement is not a PDF (its first bytes are not %PDF-).' };
  }
  return contentType
    ? { ok: true, contentType }
    : { ok: false, reason: `The ${KIND_NAMES[kind]} is not a PDF or a JPEG, PNG, WebP or GIF image.` };
}
