import type { Db, Queryable } from '../platform/db/db.ts';
import type { DocumentCipher } from './cipher.ts';

/** Files per transaction of `rentpay documents reencrypt` unless told otherwise. */
export const REENCRYPT_BATCH_SIZE = 100;

export interface DocumentFilesOfKey {
  keyId: string;
  files: number;
}

/** How many stored document files each key encrypts, by key id. */
export async function documentFilesByKey(db: Queryable): Promise<DocumentFilesOfKey[]> {
  const rows = await db.query<{ key_id: string; files: number }>(
    'SELECT key_id, count(*)::int AS files FROM document_files GROUP BY key_id ORDER BY key_id',
  );
  return rows.map((row) => ({ keyId: row.key_id, files: row.files }));
}

export interface ReencryptProgress {
  /** Files moved to the current key so far. */
  reencrypted: number;
  /** What this run can move: the files moved so far and those still under a previous key it has. */
  total: number;
}

export interface ReencryptOptions {
  /** Files per transaction (default 100). */
  batchSize?: number;
  /** Called after each committed batch. */
  onBatch?(progress: ReencryptProgress): void;
  /** Asked before each batch: true ends the run there. The batches committed stay done; a later run does the rest. */
  shouldStop?(): boolean;
}

export interface UnreadableDocumentFile {
  storageKey: string;
  keyId: string;
  error: string;
}

export interface ReencryptResult {
  /** Files this run moved to the current key. */
  reencrypted: number;
  /** True when shouldStop ended the run before every file was seen. */
  stopped: boolean;
  /** Files under a key other than the current one after the run, per key; `known`: this process has that key. */
  left: (DocumentFilesOfKey & { known: boolean })[];
  /** Files under a key this process has that failed to decrypt (changed at rest): left as they are. */
  unreadable: UnreadableDocumentFile[];
}

interface BatchOutcome {
  /** Rows the batch locked and went through (moved or not). */
  seen: number;
  last: string | undefined;
  moved: number;
  unreadable: UnreadableDocumentFile[];
}

/**
 * One transaction: the next `batchSize` files (in storage-key order, after `after`) under one of `previous`, each
 * locked `FOR UPDATE SKIP LOCKED` (a file another transaction holds is passed over), decrypted, encrypted under the
 * current key and written back with its key id. Bytes are read one file at a time, so memory holds one document.
 */
async function reencryptBatch(
  tx: Queryable,
  cipher: DocumentCipher,
  previous: string[],
  after: string,
  batchSize: number,
): Promise<BatchOutcome> {
  const rows = await tx.query<{ storage_key: string; key_id: string }>(
    `SELECT storage_key, key_id FROM document_files
      WHERE key_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND storage_key > $2
      ORDER BY storage_key
      LIMIT $3
      FOR UPDATE SKIP LOCKED`,
    [previous, after, batchSize],
  );
  let moved = 0;
  const unreadable: UnreadableDocumentFile[] = [];
  for (const { storage_key: storageKey, key_id: keyId } of rows) {
    const [file] = await tx.query<{ bytes: Uint8Array }>(
      'SELECT bytes FROM document_files WHERE storage_key = $1',
      [storageKey],
    );
    if (!file) continue;
    let plain: Buffer;
    try {
      plain = cipher.decrypt(storageKey, keyId, file.bytes);
    } catch (error) {
      unreadable.push({ storageKey, keyId, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const sealed = cipher.encrypt(storageKey, plain);
    await tx.query('UPDATE document_files SET key_id = $2, bytes = $3 WHERE storage_key = $1', [
      storageKey,
      sealed.keyId,
      sealed.bytes,
    ]);
    moved += 1;
  }
  return { seen: rows.length, last: rows.at(-1)?.storage_key, moved, unreadable };
}

/**
 * Moves every stored document file under a previous key of `cipher` to its current key, `batchSize` files per
 * transaction. Each batch commits on its own, so a run stopped (or killed) halfway leaves every file readable, under
 * its old key or the new one, and the next run does only what is left. Files under a key the cipher does not have
 * are left as they are and reported in `left` (`known: false`); so are files that fail to decrypt (`unreadable`).
 * Safe beside running nodes that have both keys; two runs at once skip each other's locked files.
 */
export async function reencryptDocuments(
  db: Db,
  cipher: DocumentCipher,
  options: ReencryptOptions = {},
): Promise<ReencryptResult> {
  const batchSize = options.batchSize ?? REENCRYPT_BATCH_SIZE;
  const current = cipher.current.id;
  const previous = cipher.keyIds.filter((id) => id !== current);
  const unreadable = new Map<string, UnreadableDocumentFile>();
  let reencrypted = 0;
  let stopped = false;
  // Passes over the files until one moves nothing: a file written under an old key during a pass (by a node not yet
  // restarted with the new key) behind the pass's position is picked up by the next.
  let movedInPass = -1;
  while (previous.length > 0 && movedInPass !== 0 && !stopped) {
    const [{ files: remaining } = { files: 0 }] = await db.query<{ files: number }>(
      `SELECT count(*)::int AS files FROM document_files
        WHERE key_id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
      [previous],
    );
    if (remaining === 0) break;
    const total = reencrypted + remaining;
    movedInPass = 0;
    let after = '';
    for (;;) {
      // A turn of the event loop between batches: the embedded database answers without one, and a signal asking
      // this run to stop is only seen in one.
      await new Promise((resolve) => setImmediate(resolve));
      if (options.shouldStop?.()) {
        stopped = true;
        break;
      }
      const batch = await db.transaction((tx) => reencryptBatch(tx, cipher, previous, after, batchSize));
      if (batch.seen === 0 || batch.last === undefined) break;
      after = batch.last;
      movedInPass += batch.moved;
      reencrypted += batch.moved;
      for (const file of batch.unreadable) unreadable.set(file.storageKey, file);
      options.onBatch?.({ reencrypted, total });
    }
  }
  const left = (await documentFilesByKey(db))
    .filter((row) => row.keyId !== current)
    .map((row) => ({ ...row, known: previous.includes(row.keyId) }));
  return { reencrypted, stopped, left, unreadable: [...unreadable.values()] };
}
