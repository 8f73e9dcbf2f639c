import type { JobHandler, JobSpec } from '../platform/jobs/queue.ts';
import type { DocumentStore } from './storage.ts';

/** Payload `{storage_key}`: a stored file whose document was cleared or replaced. */
export const DOCUMENT_PURGE_JOB = 'document.purge';

export function purgeJob(storageKey: string): JobSpec {
  return {
    kind: DOCUMENT_PURGE_JOB,
    payload: { storage_key: storageKey },
    dedupeKey: `${DOCUMENT_PURGE_JOB}:${storageKey}`,
  };
}

/**
 * Deletes a file no document refers to any more: KYC files are personal data and are kept no longer than their
 * link. A newer fetch may have stored identical bytes under the same key, so a key still referenced is kept.
 * Deleting a missing file is a no-op, so running twice changes nothing.
 */
export function documentPurgeHandler(store: DocumentStore): JobHandler {
  return async ({ job, db }) => {
    const storageKey = String(job.payload.storage_key);
    const [referenced] = await db.query('SELECT 1 FROM documents WHERE storage_key = $1 LIMIT 1', [
      storageKey,
    ]);
    if (referenced) return;
    await store.delete(storageKey);
  };
}
