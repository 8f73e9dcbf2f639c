import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  contentType: string;
  etag: string;
}

/** Compressed files by path, kept while their size and modification time stay the same (apps built in one process). */
const compressed = new Map<string, { mtimeMs: number; size: number; file: StaticFile }>();

/**
 * Reads a built directory into memory once, compressed both ways, so serving a file is a map lookup.
 * Undefined when the directory does not exist (the front end has not been built).
 */
export function loadStaticDirectory(directory: string): Map<string, StaticFile> | undefined {
  if (!fs.existsSync(directory)) return undefined;
  const files = new Map<string, StaticFile>();
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(directory, relative), { withFileTypes: true })) {
      const name = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) {
        walk(name);
        continue;
      }
      files.set(name, loadFile(path.join(directory, name)));
    }
  };
  walk('');
  return files;
}

function loadFile(filePath: string): StaticFile {
  const { mtimeMs, size } = fs.statSync(filePath);
  const known = compressed.get(filePath);
  if (known && known.mtimeMs === mtimeMs && known.size === size) return known.file;
  const body = fs.readFileSync(filePath);
  const file: StaticFile = {
    body,
    gzip: zlib.gzipSync(body, { level: 9 }),
    brotli: zlib.brotliCompressSync(body),
    contentType: CONTENT_TYPES[path.extname(filePath)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
  compressed.set(filePath, { mtimeMs, size, file });
  return file;
}

/** Sends a loaded file, compressed as the client accepts; `immutable` for content-hashed names. */
export function sendStaticFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: StaticFile,
  caching: 'immutable' | 'no-store' | 'revalidate',
): FastifyReply {
  reply.header('content-type', file.contentType);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('vary', 'accept-encoding');
  reply.header(
    'cache-control',
    caching === 'immutable'
      ? 'public, max-age=31536000, immutable'
      : caching === 'no-store'
        ? 'no-store'
        : 'no-cache',
  );
  if (caching !== 'no-store') {
    reply.header('etag', file.etag);
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  }
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(file.brotli);
  if (/\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}
