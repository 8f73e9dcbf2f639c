/**
 * A refund: the integrator refunds part of the card payment with its server token (201 succeeded, or 202 pending:
 * Stripe may take a while to confirm a refund), then Stripe's refund.updated and charge.refunded events about the
 * payment go to our webhook endpoint until the refund has succeeded, and the payment shows what was refunded,
 * once (the events of our own refund add nothing to it).
 */
import { firstRow, qb } from '../platform/db/query-builder.ts';
import type { CardPayment } from './card.ts';
import { EVENT_WAIT_SECONDS, eventsApplied, fail, newKey, type Smoke, section, step } from './harness.ts';

const REFUND_AMOUNT = '5.00';

export async function partialRefund(smoke: Smoke, server: string, paid: CardPayment): Promise<void> {
  section('refund');
  const answer = await smoke.call(
    'POST',
    `/api/third-party/payments/${paid.paymentId}/refunds/`,
    server,
    { amount: REFUND_AMOUNT },
    { 'idempotency-key': newKey('smoke-refund') },
  );
  const expected = { 201: 'succeeded', 202: 'pending' }[answer.status as 201 | 202];
  if (!expected || answer.body.status !== expected) {
    fail(
      `refunding ${REFUND_AMOUNT} of payment ${paid.paymentId}: HTTP ${answer.status} ${answer.body?.status ?? ''}, ` +
        'not 201 succeeded or 202 pending',
      answer.body,
    );
  }
  const refundId = answer.body.refund_id as string;
  step(`refund ${refundId} of ${answer.body.amount}: ${answer.body.status} (HTTP ${answer.status})`);

  const refundNow = async () => {
    return firstRow(
      smoke.app.ctx.db,
      qb.selectFrom('refunds').select(['status', 'failure_code']).where('id', '=', refundId),
    );
  };
  const delivered = await smoke.deliverEventsUntil(
    ['refund.updated', 'charge.refunded'],
    paid.intentId,
    async (types) => {
      const refund = await refundNow();
      if (refund?.status === 'failed') fail(`refund ${refundId} failed at Stripe (${refund.failure_code})`);
      return refund?.status === 'succeeded' && types.length > 0;
    },
  );
  if (!delivered) {
    const refund = await refundNow();
    fail(
      refund?.status === 'succeeded'
        ? `Stripe listed no refund.updated or charge.refunded event for ${paid.intentId} in ~${EVENT_WAIT_SECONDS} s`
        : `refund ${refundId} is still ${refund?.status} after ~${EVENT_WAIT_SECONDS} s: Stripe listed no ` +
            'refund.updated event saying it succeeded',
    );
  }
  step(`webhook: ${eventsApplied(delivered)}`);

  const shown = await smoke.operator('GET', `/api/operator/payments/${paid.paymentId}`);
  if (shown.status !== 200)
    fail(`the operator’s payment ${paid.paymentId}: HTTP ${shown.status}`, shown.body);
  if (shown.body.refunded !== REFUND_AMOUNT) {
    fail(`payment ${paid.paymentId} shows ${shown.body.refunded} refunded, not ${REFUND_AMOUNT}`, shown.body);
  }
  step(`refund ${refundId} succeeded: payment ${paid.paymentId} shows ${shown.body.refunded} refunded`);
}
