import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueue } from '../platform/jobs/define.ts';
import { retireServerTokenJob } from './jobs/retire-server-token.ts';
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

export async function scheduleRetirement(
  tx: Queryable,
  clock: Clock,
  tokenId: string,
  at: Date,
): Promise<void> {
  await enqueue(
    tx,
    clock,
    retireServerTokenJob,
    { token_id: tokenId, expires_at: at.toISOString() },
    { runAt: at },
  );
}
