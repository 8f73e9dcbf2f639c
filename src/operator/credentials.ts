import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { parseAuthorization } from '../platform/http/auth.ts';
import type { AuthFailureLimiter } from '../platform/http/auth-failures.ts';
import { digestsEqual, randomBase62, sha256Hex } from '../platform/ids.ts';

export const OPERATOR_TOKEN_PREFIX = 'rpo_';

/**
 * When OPERATOR_TOKEN is not configured, the first process to start generates one and stores its hash.
 * Returns the token only to the process that created it, so it is printed exactly once.
 */
export async function ensureOperatorToken(
  db: Db,
  clock: Clock,
  configured: string | undefined,
): Promise<string | undefined> {
  if (configured !== undefined) {
    // A configured token replaces a generated one for good: unsetting OPERATOR_TOKEN later must not revive it.
    await db.query('DELETE FROM operator_credentials');
    return undefined;
  }
  const token = `${OPERATOR_TOKEN_PREFIX}${randomBase62(40)}`;
  const inserted = await db.query(
    `INSERT INTO operator_credentials (id, token_hash, created_at) VALUES (1, $1, $2)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [sha256Hex(token), clock.now()],
  );
  return inserted.length > 0 ? token : undefined;
}

/** onRequest hook for the Operator API: `Authorization: Bearer <operator token>`. */
export function operatorAuth(
  db: Db,
  configured: string | undefined,
  authFailures: Pick<AuthFailureLimiter, 'assertMayLookUp'>,
) {
  const configuredHash = configured === undefined ? undefined : sha256Hex(configured);
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const parsed = parseAuthorization(request.headers.authorization);
    if (parsed?.scheme.toLowerCase() !== 'bearer') {
      throw new ServiceError('unauthorized', 'Send "Authorization: Bearer <operator token>".', {
        'www-authenticate': 'Bearer',
      });
    }
    const presented = sha256Hex(parsed.credentials);
    let expected = configuredHash;
    if (expected === undefined) {
      authFailures.assertMayLookUp(request.ip);
      const row = await firstRow(
        db,
        qb.selectFrom('operator_credentials').select('token_hash').where('id', '=', 1),
      );
      expected = row?.token_hash;
    }
    if (expected === undefined || !digestsEqual(presented, expected)) {
      throw new ServiceError('unauthorized', 'Invalid operator token.', { 'www-authenticate': 'Bearer' });
    }
  };
}
