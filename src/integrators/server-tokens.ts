import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
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
  const integrator = await firstRow(
    tx,
    qb.selectFrom('integrators').select('id').where('id', '=', integratorId).forNoKeyUpdate(),
  );
  if (!integrator) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
  return rows(tx, validTokens(integratorId, now).select(['id', 'expires_at']));
}

/** The integrator's server tokens valid at `now` (no expiry, or a later one), newest first; select what you need. */
export function validTokens(integratorId: string, now: Date) {
  return qb
    .selectFrom('server_tokens')
    .where('integrator_id', '=', integratorId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('seq', 'desc');
}

export async function insertServerToken(
  tx: Queryable,
  integratorId: string,
  token: string,
  now: Date,
): Promise<string> {
  const id = newId('tok');
  await tx.query(
    `INSERT INTO server_tokens (id, integrator_id, token_hash, display_prefix, created_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [id, integratorId, hashToken(token), displayPrefix(token), now],
  );
  return id;
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
