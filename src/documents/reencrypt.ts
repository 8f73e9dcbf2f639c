import { sql } from 'kysely';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { DocumentCipher } from './cipher.ts';

/** Files per transaction of `rentpay documents reencrypt` unless told otherwise. */
export const REENCRYPT_BATCH_SIZE = 100;

export interface DocumentFilesOfKey {
  keyId: string;
  files: number;
}

/** How many stored document files each key encrypts, by key id. */
export async function documentFilesByKey(db: Queryable): Promise<DocumentFilesOfKey[]> {
  const counts = await rows(
    db,
    qb
      .selectFrom('document_files')
      .select(['key_id', sql<number>`count(*)::int`.as('files')])
      .groupBy('key_id')
      .orderBy('key_id'),
  );
  return counts.map((row) => ({ keyId: row.key_id, files: row.files }));
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
  const batch = await rows(
    tx,
    qb
      .selectFrom('document_files')
      .select(['storage_key', 'key_id'])
      .where('key_id', 'in', previous)
      .where('storage_key', '>', after)
      .orderBy('storage_key')
      .limit(batchSize)
      .forUpdate()
      .skipLocked(),
  );
  let moved = 0;
  const unreadable: UnreadableDocumentFile[] = [];
  for (const { storage_key: storageKey, key_id: keyId } of batch) {
    const file = await firstRow(
      tx,
      qb.selectFrom('document_files').select('bytes').where('storage_key', '=', storageKey),
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
  return { seen: batch.length, last: batch.at(-1)?.storage_key, moved, unreadable };
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
    const { files: remaining } = (await firstRow(
      db,
      qb
        .selectFrom('document_files')
        .select(sql<number>`count(*)::int`.as('files'))
        .where('key_id', 'in', previous),
    )) ?? { files: 0 };
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
