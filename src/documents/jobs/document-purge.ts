import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { DocumentStore } from '../storage.ts';

/**
 * Deletes a stored file whose document was cleared or replaced: KYC files are personal data and are kept no longer
 * than their link. A newer fetch may have stored identical bytes under the same key, so a key still referenced is
 * kept. Deleting a missing file is a no-op, so running twice changes nothing.
 */
export const documentPurgeJob = defineJob({
  kind: 'document.purge',
  summary: 'Deletes a stored document file no document refers to any more',
  payload: Type.Object({ storage_key: Type.String() }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ storage_key }) => `document.purge:${storage_key}`,
  run:
    (store: DocumentStore) =>
    async ({ storage_key }, { db }) => {
      const [referenced] = await db.query('SELECT 1 FROM documents WHERE storage_key = $1 LIMIT 1', [
        storage_key,
      ]);
      if (referenced) return;
      await store.delete(storage_key);
    },
});
