import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJob, type JobHandler } from '../platform/jobs/queue.ts';
import { displayPrefix, hashToken } from './tokens.ts';

/** The server_tokens table: what rotation, reissue and retirement write and read. */

/** The integrator's valid server tokens, newest first, with the integrator locked for the rest of `tx` (404 if none). */
export async function lockValidTokens(
  tx: Queryable,
  integratorId: string,
  now: Date,
): Promise<{ id: string; expires_at: Date | null }[]> {
  // Serialises concurrent rotations of one integrator, so two of them cannot leave three valid tokens.
  const [integrator] = await tx.query('SELECT id FROM integrators WHERE id = $1 FOR NO KEY UPDATE', [
    integratorId,
  ]);
  if (!integrator) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
  return tx.query<{ id: string; expires_at: Date | null }>(
    `SELECT id, expires_at FROM server_tokens
      WHERE integrator_id = $1 AND (expires_at IS NULL OR expires_at > $2)
      ORDER BY seq DESC`,
    [integratorId, now],
  );
}

export async function insertServerToken(
  tx: Queryable,
  integratorId: string,
  token: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO server_tokens (id, integrator_id, token_hash, display_prefix, created_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [newId('tok'), integratorId, hashToken(token), displayPrefix(token), now],
  );
}

export const RETIRE_SERVER_TOKEN_JOB = 'server-token.retire';

export async function scheduleRetirement(
  tx: Queryable,
  clock: Clock,
  tokenId: string,
  at: Date,
): Promise<void> {
  await enqueueJob(
    tx,
    clock,
    RETIRE_SERVER_TOKEN_JOB,
    { token_id: tokenId },
    // The expiry is part of the key: a token whose expiry is brought forward gets a second, earlier job.
    { runAt: at, dedupeKey: `${RETIRE_SERVER_TOKEN_JOB}:${tokenId}:${at.toISOString()}` },
  );
}

/**
 * Deletes a server token's hash once it has expired: an expired credential is kept no longer than needed.
 * Idempotent: a missing row or a second run changes nothing.
 */
export const retireServerToken: JobHandler = async ({ job, db, clock }) => {
  const tokenId = String(job.payload.token_id);
  const [row] = await db.query<{ expires_at: Date | null }>(
    'SELECT expires_at FROM server_tokens WHERE id = $1',
    [tokenId],
  );
  if (!row) return;
  if (row.expires_at === null || new Date(row.expires_at).getTime() > clock.now().getTime()) {
    throw new Error(`server token ${tokenId} has not expired yet`);
  }
  await db.query('DELETE FROM server_tokens WHERE id = $1 AND expires_at <= $2', [tokenId, clock.now()]);
};
