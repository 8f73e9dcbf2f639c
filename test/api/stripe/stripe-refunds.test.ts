/**
 * Refunds with Stripe as Stripe really answers them (through its local stand-in): a refund may stay `pending` and
 * end later in refund.updated or refund.failed, and one that succeeded may still fail (the card was closed). rentpay
 * keeps a pending refund pending, announces a failure with `refund_failed`, and gives a payout back what it
 * deducted for a refund that then failed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorRequest, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs } from '../../support/helpers.ts';
import { clientOf } from '../../support/payment-client.ts';
import {
  confirmationToken,
  deliverStripeEvents,
  type StripeApp,
  startStripeApp,
} from '../../support/stripe-app.ts';

const DAY = 86_400_000;

let s: StripeApp;
before(async () => {
  s = await startStripeApp();
  await s.api.onboardOk(
    ['r1', 'r2', 'r3'].map((name, i) =>
      userBody({
        user_id: 900 + i,
        email: `${name}@example.com`,
        tenant: [tenancyBody({ payment_reference: `REFUND-${name.toUpperCase()}` })],
      }),
    ),
  );
});
after(() => s.close());

/** A £1,200.00 rent card payment (£1,217.40 with the fee) by the tenant of `email`. */
async function pay(email: string): Promise<{ paymentId: string; intentId: string }> {
  const session = await s.api.loginOk(email);
  const paid = await clientOf(s.t, session.token).pay({
    confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
  });
  assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
  return { paymentId: paid.body.payment_id, intentId: paid.body.processor_reference };
}

/** The integrator refunds `amount` of the payment with its server token. */
function refund(paymentId: string, amount: string) {
  return send(s.t, {
    method: 'POST',
    url: `/api/third-party/payments/${paymentId}/refunds/`,
    headers: { authorization: `Token ${s.api.serverToken}` },
    payload: { amount },
  });
}

/** A refund Stripe accepts as `pending`. */
async function pendingRefund(paymentId: string, amount: string) {
  s.stand.refundsPending = true;
  try {
    return await refund(paymentId, amount);
  } finally {
    s.stand.refundsPending = false;
  }
}

/** The payment's events with their refund, oldest first: "type amount status [failure_code]". */
async function refundEvents(paymentId: string): Promise<string[]> {
  const rows = await s.t.db.query<{ type: string; refund: Record<string, string | null> | null }>(
    `SELECT type, data->'refund' AS refund FROM events WHERE data->'payment'->>'payment_id' = $1
      ORDER BY created_at, id`,
    [paymentId],
  );
  return rows
    .filter((row) => row.refund)
    .map((row) =>
      [row.type, row.refund!.amount, row.refund!.status, row.refund!.failure_code].filter(Boolean).join(' '),
    );
}

const refundedOf = async (paymentId: string) =>
  (await operatorRequest(s.t, 'GET', `/payments/${paymentId}`)).body.refunded as string;

/** Stripe's Refund for our refund (its metadata names it). */
function stripeRefundOf(refundId: string): string {
  const found = [...s.stand.refunds.values()].find(
    (r) => (r.metadata as Record<string, string>).refund_id === refundId,
  );
  assert.ok(found, `Stripe has no refund for ${refundId}`);
  return found.id;
}

describe('Stripe refunds that are pending, and that fail', () => {
  it('a pending refund stays pending (not refunded yet) until refund.updated says it succeeded', async () => {
    const { paymentId } = await pay('r1@example.com');
    const asked = await pendingRefund(paymentId, '200.00');
    assert.equal(asked.status, 202, 'accepted, not done');
    assert.equal(asked.body.status, 'pending');
    assert.equal(await refundedOf(paymentId), '0.00');
    // Stripe's charge.refunded (its amount_refunded counts the pending refund) records no refund of its own.
    await deliverStripeEvents(s.t, s.stand);
    assert.deepEqual(await refundEvents(paymentId), []);
    // What is being refunded is not refundable twice.
    assert.equal((await refund(paymentId, '1017.41')).status, 400);

    s.stand.settleRefund(stripeRefundOf(asked.body.refund_id), 'succeeded');
    await deliverStripeEvents(s.t, s.stand);
    assert.equal(await refundedOf(paymentId), '200.00');
    assert.deepEqual(await refundEvents(paymentId), ['payment_refunded 200.00 succeeded']);
    // Stripe sends refund.updated and charge.refund.updated for the same change: applied once.
    assert.equal((await refundEvents(paymentId)).length, 1);
  });

  it('a pending refund that fails: refund_failed with Stripe’s reason, nothing refunded, the amount refundable again', async () => {
    const { paymentId } = await pay('r2@example.com');
    const asked = await pendingRefund(paymentId, '300.00');
    assert.equal(asked.status, 202);
    assert.equal(asked.body.status, 'pending');
    s.stand.settleRefund(stripeRefundOf(asked.body.refund_id), 'failed');
    // Newest first: charge.refunded, sent when the refund was made, counts it still and arrives last.
    await deliverStripeEvents(s.t, s.stand, { reversed: true, twice: true });
    assert.equal(await refundedOf(paymentId), '0.00');
    assert.deepEqual(await refundEvents(paymentId), ['refund_failed 300.00 failed expired_or_canceled_card']);
    const listed = await send(s.t, {
      method: 'GET',
      url: '/api/third-party/events/?limit=100',
      headers: { authorization: `Token ${s.api.serverToken}` },
    });
    const failed = listed.body.data.find(
      (e: { type: string; data: { payment: { payment_id: string } } }) =>
        e.type === 'refund_failed' && e.data.payment.payment_id === paymentId,
    );
    assert.ok(failed, 'the integrator sees refund_failed');
    assert.match(failed.data.refund.failure_message, /did not go back to the cardholder/);
    const again = await refund(paymentId, '1217.40');
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.body.status, 'succeeded');
  });

  it('a refund that fails after it succeeded and was deducted from a payout: reversed, and the next payout gives it back', async () => {
    const { paymentId } = await pay('r3@example.com');
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
    const today = () => s.t.clock.now().toISOString().slice(0, 10);
    const first = await operatorRequest(s.t, 'POST', '/payouts/runs', { as_of: today() });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(
      (await operatorRequest(s.t, 'POST', `/payouts/runs/${first.body.payout_run_id}/confirm`)).status,
      200,
    );
    // The operator refunds £500.00 after the rent was paid out: deducted from the tenancy's next payout.
    s.t.clock.advance(60_000);
    const asked = await operatorRequest(s.t, 'POST', `/payments/${paymentId}/refunds`, { amount: '500.00' });
    assert.equal(asked.body.status, 'succeeded', JSON.stringify(asked.body));
    await deliverStripeEvents(s.t, s.stand);
    await pay('r3@example.com');
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
    const second = await operatorRequest(s.t, 'POST', '/payouts/runs', { as_of: today() });
    const item = (run: { body: { items: { payment_reference: string; amount: string }[] } }) =>
      run.body.items.find((p) => p.payment_reference === 'REFUND-R3')?.amount;
    assert.equal(item(second), '700.00', '£1,200.00 less the £500.00 refunded');
    assert.equal(
      (await operatorRequest(s.t, 'POST', `/payouts/runs/${second.body.payout_run_id}/confirm`)).status,
      200,
    );

    // The cardholder's card was closed: Stripe fails the refund days later.
    s.stand.settleRefund(stripeRefundOf(asked.body.refund_id), 'failed');
    // Newest first: charge.refunded, sent when the refund was made, counts it still and arrives last.
    await deliverStripeEvents(s.t, s.stand, { reversed: true, twice: true });
    assert.equal(await refundedOf(paymentId), '0.00');
    assert.deepEqual(await refundEvents(paymentId), [
      'payment_refunded 500.00 succeeded',
      'refund_failed 500.00 failed expired_or_canceled_card',
    ]);
    const ledger = await send(s.t, {
      method: 'GET',
      url: '/api/third-party/ledger/?payment_reference=REFUND-R3',
      headers: { authorization: `Token ${s.api.serverToken}` },
    });
    assert.deepEqual(
      ledger.body.entries.filter((e: { type: string }) => e.type === 'refund'),
      [],
      'the money never went back: no refund in the ledger',
    );
    const third = await operatorRequest(s.t, 'POST', '/payouts/runs', { as_of: today() });
    assert.equal(item(third), '500.00', 'the deducted £500.00 given back');
    const [lines] = await s.t.db.query<{ kinds: string }>(
      `SELECT string_agg(l.kind || ' ' || l.amount_pence, ', ') AS kinds
         FROM payout_lines l JOIN payouts po ON po.id = l.payout_id WHERE po.payout_run_id = $1`,
      [third.body.payout_run_id],
    );
    assert.equal(lines!.kinds, 'refund_reversal 50000');
    assert.deepEqual(
      (await operatorRequest(s.t, 'POST', '/payouts/runs', { as_of: today() })).body.items,
      [],
      'given back once',
    );
    const reconciled = await operatorRequest(s.t, 'GET', '/payouts/reconcile');
    assert.deepEqual(reconciled.body.mismatches, []);
  });
});
