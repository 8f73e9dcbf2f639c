/**
 * A recurring charge the tenant's bank wants authenticated (SCA), with Stripe (its local stand-in): the charge waits
 * for the tenant (`payment_action_required`), the next session shows it, the tenant confirms it (Stripe.js completes
 * the PaymentIntent's 3DS with its client secret), and it succeeds; unconfirmed past its confirm-by day it fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runJobs } from '../../support/helpers.ts';
import { newTenant, type Tenant } from '../../support/payment-client.ts';
import {
  createSchedule,
  integrationSchedules,
  schedulePaymentEvents,
} from '../../support/schedule-helpers.ts';
import {
  deliverStripeEvents,
  intentAt,
  postStripeEvent,
  STRIPE_WEBHOOK_SECRET,
  type StripeApp,
  saveStripeCard,
  startStripeApp,
} from '../../support/stripe-app.ts';

let s: StripeApp;
before(async () => {
  s = await startStripeApp();
});
after(() => s.close());

/**
 * A tenant whose monthly £500.00 schedule charges a card needing 3DS every time, run to its first due date: the
 * charge waits for them. Returns the tenant, the waiting payment's id and its confirm-by day.
 */
async function waitingCharge(): Promise<{
  tenant: Tenant;
  paymentId: string;
  confirmBy: string;
  dueDate: string;
}> {
  const tenant = await newTenant(s.t, s.api);
  const cardId = await saveStripeCard(s, tenant, 'pm_card_authenticationRequired');
  const created = await createSchedule({ client: tenant.client, cardId }, { pure_amount: '500.00' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const dueDate = created.body.next_due_date as string;
  assert.equal((await integrationSchedules(s.t, s.api).run(dueDate)).status, 200);
  await runJobs(s.t);
  const events = await schedulePaymentEvents(s.t, created.body.schedule_id);
  assert.deepEqual(
    events.map((e) => e.type),
    ['payment_action_required'],
  );
  const data = events[0]!.data as {
    payment: { payment_id: string };
    action_required: { confirm_by: string };
  };
  return { tenant, paymentId: data.payment.payment_id, confirmBy: data.action_required.confirm_by, dueDate };
}

describe('a recurring charge the bank wants the tenant to authenticate (Stripe)', () => {
  it('waits for the tenant, is shown in their next session, and succeeds once they authenticate it', async () => {
    const { tenant, paymentId, confirmBy, dueDate } = await waitingCharge();
    const day = (offset: number) =>
      new Date(Date.parse(dueDate) + offset * 86_400_000).toISOString().slice(0, 10);
    assert.equal(confirmBy, day(3), 'the last day a refused charge would have been retried');
    // Stripe's own event of the off-session refusal changes nothing: the charge keeps waiting.
    await deliverStripeEvents(s.t, s.stand);
    const intentId = (await tenant.client.payment(paymentId)).body.processor_reference as string;
    assert.equal(intentAt(s.stand, intentId).status, 'requires_payment_method');

    // The platform opens a new session: the page learns of the waiting charge first.
    const client = await tenant.login();
    const session = await client.call('GET', '/session');
    assert.equal(session.status, 200, JSON.stringify(session.body));
    assert.equal(session.body.action_required.length, 1);
    const [waiting] = session.body.action_required;
    assert.equal(waiting.payment.payment_id, paymentId);
    assert.equal(waiting.payment.amount, '507.25');
    assert.deepEqual([waiting.reason, waiting.confirm_by], ['authentication_required', confirmBy]);

    s.t.clock.advance(60_000);
    const confirmed = await client.call('POST', `/payments/${paymentId}/confirm`);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.status, 'requires_action');
    const intent = intentAt(s.stand, intentId);
    assert.deepEqual(confirmed.body.next_action, {
      type: 'stripe_next_action',
      client_secret: intent.client_secret,
    });
    assert.equal((intent.next_action as { type: string }).type, 'use_stripe_sdk');
    // A second press answers the same step.
    const again = await client.call('POST', `/payments/${paymentId}/confirm`);
    assert.deepEqual(again.body.next_action, confirmed.body.next_action);
    // Stripe redelivers its event of the off-session refusal, late: the tenant's confirmation goes on.
    const refusal = s.stand.events.find(
      (e) => e.type === 'payment_intent.payment_failed' && e.object.id === intentId,
    )!;
    const late = s.stand.signedEvent(refusal.type, refusal.object, STRIPE_WEBHOOK_SECRET);
    assert.equal((await postStripeEvent(s.t, late.body, late.signature)).status, 200);
    await runJobs(s.t);
    assert.equal((await client.payment(paymentId)).body.status, 'requires_action');
    assert.equal(intentAt(s.stand, intentId).status, 'requires_action', 'not canceled');

    s.stand.completeAction(intentId, true);
    await deliverStripeEvents(s.t, s.stand);
    const done = await client.payment(paymentId);
    assert.equal(done.body.status, 'succeeded');
    const [charge] = await s.t.db.query<{ status: string }>(
      'SELECT status FROM schedule_charges WHERE last_payment_id = $1',
      [paymentId],
    );
    assert.equal(charge!.status, 'succeeded');
    const types = (
      await s.t.db.query<{ type: string }>(
        "SELECT type FROM events WHERE data->'payment'->>'payment_id' = $1 ORDER BY created_at, id",
        [paymentId],
      )
    ).map((e) => e.type);
    assert.deepEqual(types, ['payment_action_required', 'payment_success']);
    assert.deepEqual((await client.call('GET', '/session')).body.action_required, []);
  });

  it('another tenant cannot see or confirm it; a payment not waiting is 409', async () => {
    const { paymentId } = await waitingCharge();
    const stranger = await newTenant(s.t, s.api);
    assert.equal((await stranger.client.call('POST', `/payments/${paymentId}/confirm`)).status, 404);
    assert.equal((await stranger.client.payment(paymentId)).status, 404);
    assert.deepEqual((await stranger.client.call('GET', '/session')).body.action_required, []);
    const paid = await stranger.client.pay({
      confirmation_token: String(s.stand.createConfirmationToken('pm_card_visa').id),
    });
    const notWaiting = await stranger.client.call('POST', `/payments/${paid.body.payment_id}/confirm`);
    assert.equal(notWaiting.status, 409, JSON.stringify(notWaiting.body));
  });

  it('unconfirmed after its confirm-by day: withdrawn at Stripe, payment_failed (authentication_required), no retry', async () => {
    const { tenant, paymentId, confirmBy } = await waitingCharge();
    const schedules = integrationSchedules(s.t, s.api);
    assert.equal((await schedules.run(confirmBy)).status, 200);
    await runJobs(s.t);
    assert.equal(
      (await tenant.client.payment(paymentId)).body.status,
      'requires_action',
      'still confirmable',
    );
    const dayAfter = new Date(Date.parse(confirmBy) + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await schedules.run(dayAfter)).status, 200);
    await runJobs(s.t);
    const failed = await tenant.client.payment(paymentId);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.failure_code, 'authentication_required');
    assert.equal(intentAt(s.stand, failed.body.processor_reference).status, 'canceled');
    const [event] = await s.t.db.query<{ type: string; retry_on: string | null }>(
      `SELECT type, data->>'retry_on' AS retry_on FROM events
        WHERE data->'payment'->>'payment_id' = $1 AND type = 'payment_failed'`,
      [paymentId],
    );
    assert.deepEqual(event, { type: 'payment_failed', retry_on: null });
    const [charge] = await s.t.db.query<{ status: string }>(
      'SELECT status FROM schedule_charges WHERE last_payment_id = $1',
      [paymentId],
    );
    assert.equal(charge!.status, 'failed');
    assert.equal((await tenant.client.call('POST', `/payments/${paymentId}/confirm`)).status, 409);
  });
});
