import { Type } from 'typebox';
import { firstRow, qb } from '../../platform/db/query-builder.ts';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';

/**
 * Deletes a server token's hash once it has expired: an expired credential is kept no longer than needed. Runs at
 * the expiry; a token whose expiry is brought forward gets a second, earlier job (the expiry is part of the key).
 * Idempotent: a missing row or a second run changes nothing.
 */
export const retireServerTokenJob = defineJob({
  kind: 'server-token.retire',
  summary: 'Deletes a replaced server token’s hash when its grace period ends',
  payload: Type.Object({ token_id: Type.String(), expires_at: Type.Optional(Type.String()) }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ token_id, expires_at }) => `server-token.retire:${token_id}:${expires_at}`,
  run:
    () =>
    async ({ token_id }, { db, clock }) => {
      const row = await firstRow(
        db,
        qb.selectFrom('server_tokens').select('expires_at').where('id', '=', token_id),
      );
      if (!row) return;
      if (row.expires_at === null || row.expires_at > clock.now()) {
        throw new Error(`server token ${token_id} has not expired yet`);
      }
      await db.query('DELETE FROM server_tokens WHERE id = $1 AND expires_at <= $2', [token_id, clock.now()]);
    },
});
