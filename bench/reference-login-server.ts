import { randomBytes } from 'node:crypto';
import { hashToken } from '../src/integrators/tokens.ts';
import { runReferenceServer } from './reference-child.ts';

/**
 * The user-login yardstick: a hand-written durable login in one statement (the token checked, the user and tenancy
 * found and the session inserted together) on bare Fastify and stock node-postgres (a pool of the app's size, a
 * prepared statement), on the same database and data as the user-login case. The real app seeds the data and is
 * closed before the load starts. On PGlite it runs on the app's embedded database (one process may open it).
 */
const LOGIN = `
  WITH i AS (
    SELECT i.id FROM server_tokens t JOIN integrators i ON i.id = t.integrator_id
     WHERE t.token_hash = $1 AND (t.expires_at IS NULL OR t.expires_at > $7) AND i.status = 'active'
  ), u AS (
    SELECT id FROM users WHERE integrator_id = (SELECT id FROM i) AND email_key = $2
  ), t AS (
    SELECT t.id FROM tenancies t JOIN u ON t.user_id = u.id WHERE t.is_active
     ORDER BY t.is_primary DESC, t.created_at DESC, t.start_rent_date DESC, t.id DESC LIMIT 1
  ), created AS (
    INSERT INTO sessions (id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at, created_at,
                          pure_amount_pence, amount_editable)
    SELECT $3, (SELECT id FROM i), u.id, t.id, $4, $5, $6, $7, NULL, true FROM u CROSS JOIN t
    RETURNING id
  )
  SELECT (SELECT id FROM i) AS integrator_id, (SELECT id FROM created) AS session_id`;

interface LoginRow {
  integrator_id: string | null;
  session_id: string | null;
}

runReferenceServer((app, query) => {
  app.post<{ Body: { email?: unknown } }>('/api/third-party/user-login/', async (request, reply) => {
    const token = /^Token (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const email = request.body?.email;
    if (!token) return reply.code(401).send({ error: 'unauthorized' });
    if (typeof email !== 'string') return reply.code(400).send({ error: 'invalid_request' });
    const now = new Date();
    const sessionToken = `ust_${randomBytes(32).toString('base64url')}`;
    const [row] = await query<LoginRow>('reference-login', LOGIN, [
      hashToken(token),
      email.toLowerCase(),
      `ses_${randomBytes(15).toString('base64url')}`,
      hashToken(sessionToken),
      new Date(now.getTime() + 15 * 60_000),
      new Date(now.getTime() + 30 * 60_000),
      now,
    ]);
    if (!row?.integrator_id) return reply.code(401).send({ error: 'unauthorized' });
    if (!row.session_id) return reply.code(404).send({ error: 'not_found' });
    return {
      token: sessionToken,
      session_id: row.session_id,
      expires_at: new Date(now.getTime() + 15 * 60_000).toISOString(),
      session_expires_at: new Date(now.getTime() + 30 * 60_000).toISOString(),
    };
  });
});
