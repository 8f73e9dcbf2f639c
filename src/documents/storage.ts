import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import type { DocumentCipher } from './cipher.ts';

/** Where fetched documents live. Keys are relative paths like `<integrator_id>/<document_id>-<sha256>.bin`. */
export interface DocumentStore {
  /** Stores bytes under key, replacing what was there; a reader sees the old or the new bytes, never a part. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** Removing a key that is not there is not an error. */
  delete(key: string): Promise<void>;
}

export function documentStorageKey(integratorId: string, documentId: string, sha256: string): string {
  return `${integratorId}/${documentId}-${sha256}.bin`;
}

const KEY_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

export class InvalidStorageKeyError extends Error {
  constructor(key: string) {
    super(`Invalid document storage key: ${JSON.stringify(key)}`);
    this.name = 'InvalidStorageKeyError';
  }
}

/** Keeps keys to plain relative names so none can reach outside the store's folder. */
export function checkStorageKey(key: string): string[] {
  const segments = key.split('/');
  if (
    key.length === 0 ||
    key.length > 512 ||
    !segments.every((s) => KEY_SEGMENT.test(s) && !s.includes('..'))
  ) {
    throw new InvalidStorageKeyError(key);
  }
  return segments;
}

/**
 * The store every node shares: encrypted files in the database (document_files). A key is written once per
 * content (its name carries the SHA-256), so a second put of the same key is a no-op.
 */
export class DatabaseDocumentStore implements DocumentStore {
  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
    private readonly cipher: DocumentCipher,
  ) {}

  async put(key: string, bytes: Uint8Array): Promise<void> {
    checkStorageKey(key);
    const sealed = this.cipher.encrypt(key, bytes);
    await this.db.query(
      `INSERT INTO document_files (storage_key, key_id, bytes, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (storage_key) DO NOTHING`,
      [key, sealed.keyId, sealed.bytes, this.clock.now()],
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    checkStorageKey(key);
    const row = await firstRow(
      this.db,
      qb.selectFrom('document_files').select(['key_id', 'bytes']).where('storage_key', '=', key),
    );
    return row && this.cipher.decrypt(key, row.key_id, row.bytes);
  }

  async delete(key: string): Promise<void> {
    checkStorageKey(key);
    await this.db.query('DELETE FROM document_files WHERE storage_key = $1', [key]);
  }
}

/** Where releases before the database store kept documents (DOCUMENTS_DIR): read once, to move them in. */
export class FileDocumentStore implements DocumentStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  #pathOf(key: string): string {
    const file = path.join(this.root, ...checkStorageKey(key));
    if (!file.startsWith(`${this.root}${path.sep}`)) throw new InvalidStorageKeyError(key);
    return file;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.#pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await fs.open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        // Flushed before the rename, so a crash cannot leave the final name pointing at a short file.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temporary, file);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.#pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.#pathOf(key), { force: true });
  }
}
