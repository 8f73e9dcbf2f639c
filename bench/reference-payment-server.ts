import { randomBytes } from 'node:crypto';
import { hashToken } from '../src/integrators/tokens.ts';
import { runReferenceServer } from './reference-child.ts';

/**
 * The card-payment yardstick: a hand-written durable card payment on bare Fastify and stock node-postgres (a pool of
 * the app's size, a prepared statement), on the same database and data as the card-payment case. One statement,
 * committed on its own: the session found by its token, the idempotency key checked by the unique (session, key),
 * the payment inserted in our schema, the sandbox's charge, the payment_success event and, when the integrator has a
 * webhook URL, its delivery and the delivery's job. The least a durable, exactly-once card payment must write; the
 * charge is the sandbox's, which answers at once. The real app seeds the data and is closed before the load starts.
 */
const PAY = `
  WITH s AS (
    SELECT s.id, s.integrator_id, s.user_id, s.tenancy_id, t.payment_reference, i.webhook_url
      FROM sessions s
      JOIN tenancies t ON t.id = s.tenancy_id
      JOIN integrators i ON i.id = s.integrator_id AND i.status = 'active'
      JOIN sandbox_tokens k ON k.id = $7
     WHERE s.token_hash = $1 AND s.token_expires_at > $2
  ), p AS (
    INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                          amount_pence, method, card_brand, card_last4, reference, idempotency_key, processor,
                          processor_payment_id, created_at, updated_at)
    SELECT $3, s.integrator_id, s.id, s.user_id, s.tenancy_id, 'succeeded', $4, 0, $4, 'card', 'visa', '4242',
           s.payment_reference, $5, 'sandbox', $6, $2, $2 FROM s
    ON CONFLICT (session_id, idempotency_key) DO NOTHING
    RETURNING id, integrator_id, reference
  ), c AS (
    INSERT INTO sandbox_charges (id, idempotency_key, token_id, amount_pence, method, status, created_at, updated_at)
    SELECT $6, p.id, $7, $4, 'card', 'authorised', $2, $2 FROM p
    RETURNING id
  ), e AS (
    INSERT INTO events (id, integrator_id, type, data, created_at)
    SELECT $8, p.integrator_id, 'payment_success',
           jsonb_build_object('payment_id', p.id, 'status', 'succeeded', 'amount', $9::text, 'reference', p.reference),
           $2
      FROM p
    RETURNING id, integrator_id
  ), d AS (
    INSERT INTO webhook_deliveries (event_id, integrator_id, status, next_attempt_at, pending_since, job_id,
                                    created_at, updated_at)
    SELECT e.id, e.integrator_id, 'pending', $2, $2, $10, $2, $2
      FROM e JOIN s ON s.webhook_url IS NOT NULL
    RETURNING event_id, integrator_id, job_id
  ), j AS (
    INSERT INTO jobs (id, kind, payload, run_at, max_attempts, fair_key, created_at, updated_at)
    SELECT d.job_id, 'webhook.deliver', jsonb_build_object('event_id', d.event_id, 'integrator_id', d.integrator_id),
           $2, 10, d.integrator_id, $2, $2
      FROM d
    RETURNING id
  )
  SELECT (SELECT id FROM s) AS session_id, (SELECT id FROM p) AS payment_id, (SELECT id FROM c) AS charge_id,
         (SELECT count(*)::int FROM j) AS jobs`;

const EARLIER = `SELECT id, status FROM payments WHERE session_id = $1 AND idempotency_key = $2`;

interface PayRow {
  session_id: string | null;
  payment_id: string | null;
}

const id = (prefix: string) => `${prefix}_${randomBytes(15).toString('base64url')}`;

runReferenceServer((app, query) => {
  app.post<{ Body: { pure_amount?: unknown; method?: unknown; card_token?: unknown } }>(
    '/api/client/payments',
    async (request, reply) => {
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      const key = request.headers['idempotency-key'];
      const { pure_amount: amount, method, card_token: cardToken } = request.body ?? {};
      if (!token) return reply.code(401).send({ error: 'unauthorized' });
      if (typeof key !== 'string' || typeof cardToken !== 'string' || method !== 'card') {
        return reply.code(400).send({ error: 'invalid_request' });
      }
      const pence =
        typeof amount === 'string' && /^\d{1,8}\.\d{2}$/.test(amount) ? Number(amount.replace('.', '')) : 0;
      if (pence <= 0) return reply.code(400).send({ error: 'invalid_request' });
      const now = new Date();
      const [row] = await query<PayRow>('reference-pay', PAY, [
        hashToken(token),
        now,
        id('pay'),
        pence,
        key,
        id('ch_sandbox'),
        cardToken,
        id('evt'),
        amount,
        id('job'),
      ]);
      if (!row?.session_id) return reply.code(401).send({ error: 'unauthorized' });
      if (!row.payment_id) {
        const [earlier] = await query<{ id: string; status: string }>('reference-earlier', EARLIER, [
          row.session_id,
          key,
        ]);
        return reply.code(200).send({ payment_id: earlier?.id, status: earlier?.status });
      }
      return reply.code(201).send({ payment_id: row.payment_id, status: 'succeeded', pure_amount: amount });
    },
  );
});
