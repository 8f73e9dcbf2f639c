import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';

/**
 * Erases a replaced webhook secret once its overlap is over: a secret is kept only while it still signs. Runs at the
 * end of the overlap (the end is part of the key). Idempotent, and harmless when a later rotation has put another
 * secret in its place: that one's overlap has not ended, so it is left for its own job.
 */
export const webhookSecretEraseJob = defineJob({
  kind: 'webhook.secret-erase',
  summary: 'Erases a replaced webhook signing secret when its overlap ends',
  payload: Type.Object({ integrator_id: Type.String(), expires_at: Type.Optional(Type.String()) }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ integrator_id, expires_at }) => `webhook.secret-erase:${integrator_id}:${expires_at}`,
  run:
    () =>
    async ({ integrator_id }, { db, clock }) => {
      await db.query(
        `UPDATE webhook_endpoints SET previous_secret = NULL, updated_at = $2
          WHERE integrator_id = $1 AND previous_secret IS NOT NULL AND previous_secret_expires_at <= $2`,
        [integrator_id, clock.now()],
      );
    },
});
