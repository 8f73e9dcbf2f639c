/**
 * A card payment end to end: user-login → a ConfirmationToken for pm_card_visa (Stripe's test helper, as Stripe.js
 * would make from the Payment Element) → payment → Stripe's payment_intent.succeeded to our webhook endpoint →
 * session `completed` → the funds' available_on read from Stripe.
 */
import { sql } from 'kysely';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { eventsApplied, fail, login, newKey, type Smoke, section, step } from './harness.ts';

export interface CardPayment {
  paymentId: string;
  intentId: string;
}

export async function cardPayment(smoke: Smoke, server: string, email: string): Promise<CardPayment> {
  section('card');
  const { sessionId, client } = await login(smoke, server, email);
  step(`session ${sessionId}`);

  const token = await smoke.stripe.testHelpers.confirmationTokens.create({ payment_method: 'pm_card_visa' });
  step(`confirmation token ${token.id}`);
  const payment = await smoke.call(
    'POST',
    '/api/client/payments',
    client,
    { method: 'card', confirmation_token: token.id, pure_amount: '12.00', expected_amount: '12.17' },
    { 'idempotency-key': newKey() },
  );
  if (payment.status !== 201) fail(`paying: HTTP ${payment.status}`, payment.body);
  step(`payment ${payment.body.payment_id}: ${payment.body.status} (${payment.body.processor_reference})`);
  if (payment.body.status !== 'succeeded') fail('the payment did not succeed', payment.body);

  // Stripe's events for this PaymentIntent, as its webhook would deliver them to our endpoint.
  const intentId = payment.body.processor_reference as string;
  const delivered = await smoke.deliverEventsUntil(
    ['payment_intent.succeeded'],
    intentId,
    async (types) => types.length > 0,
  );
  if (!delivered) fail(`Stripe listed no payment_intent.succeeded event for ${intentId}`);
  step(`webhook: ${eventsApplied(delivered)}`);

  const session = await smoke.call('GET', `/api/third-party/session/${sessionId}/`, server);
  if (session.status !== 200) fail('the session query', session.body);
  if (session.body.status !== 'completed') fail('the session is not completed', session.body);
  step('session completed');

  // The settlement job (run by the worker after the event) read when Stripe makes the payment's funds available.
  const settled = await firstRow(
    smoke.app.ctx.db,
    qb
      .selectFrom('payments')
      .select(
        sql<string | null>`to_char(funds_available_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('available_on'),
      )
      .where('id', '=', payment.body.payment_id),
  );
  if (!settled?.available_on) fail('no available_on was read from the payment’s balance transaction');
  step(`funds available on ${settled!.available_on}`);
  return { paymentId: payment.body.payment_id, intentId };
}
