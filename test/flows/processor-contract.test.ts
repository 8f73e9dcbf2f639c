/**
 * The processor contract: the same cases against every payment processor (the sandbox, and Stripe through its local
 * stand-in), with the same outcome at our public APIs (Client, Integration and Operator) and in the events the
 * integrator sees. What differs between processors is only how each input is made and how each processor's events
 * arrive: that is the drivers' (test/support/processor-contract-harness.ts), never the cases'.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, operatorRequest } from '../support/api-client.ts';
import { newTenant, type Tenant } from '../support/payment-client.ts';
import {
  type ActionKind,
  integratorOn,
  type ListedEvent,
  type PaymentBody,
  type ProcessorDriver,
  sandboxDriver,
  stripeDriver,
  type TestCard,
} from '../support/processor-contract-harness.ts';
import { createSchedule, integrationSchedules } from '../support/schedule-helpers.ts';

/** One case's world: a new integrator on the processor's app and one tenant of it, logged in. */
interface Contract {
  driver: ProcessorDriver;
  integrator: Awaited<ReturnType<typeof integratorOn>>;
  tenant: Tenant;
  /** The clock moves on a second: what happens next is recorded (and listed) after what happened before. */
  later(): void;
}

/** A payment's events as the integrator lists them, oldest first: "type [refund or dispute]". */
async function eventsOf(c: Contract, paymentId: string): Promise<string[]> {
  return (await c.integrator.events())
    .filter((e) => e.data.payment?.payment_id === paymentId)
    .map((e) => summary(e));
}

function summary({ type, data }: ListedEvent): string {
  const { refund, dispute } = data;
  const about = refund
    ? [refund.amount, refund.status, refund.failure_code]
    : dispute
      ? [dispute.status, dispute.amount]
      : [];
  return [type, ...about].filter(Boolean).join(' ');
}

/** POST /api/client/payments with `fields`, as a new payment (201). */
async function pay(c: Contract, fields: Record<string, unknown>): Promise<PaymentBody> {
  const answer = await c.tenant.client.pay(fields);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  assert.equal(answer.body.processor, c.driver.name);
  assert.match(answer.body.processor_reference, c.driver.processorReference);
  return answer.body;
}

/** A £1,217.40 card payment with `card` that succeeded. */
async function paid(c: Contract, card: TestCard = 'visa'): Promise<PaymentBody> {
  const payment = await pay(c, await c.driver.card(card));
  assert.equal(payment.status, 'succeeded', JSON.stringify(payment));
  assert.equal(payment.amount, '1217.40');
  return payment;
}

/** GET /api/client/payments/{id}. */
async function reread(c: Contract, paymentId: string): Promise<PaymentBody> {
  const answer = await c.tenant.client.payment(paymentId);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** A payment waiting for the customer (3DS or an APM's page), as every processor shows it. */
function assertWaiting(c: Contract, payment: PaymentBody, kind: ActionKind): void {
  assert.equal(payment.status, 'requires_action', JSON.stringify(payment));
  assert.equal(payment.next_action?.type, c.driver.nextActionType[kind], JSON.stringify(payment.next_action));
  assert.equal(payment.failure_code, null);
}

/** The Operator API's refunded total of a payment. */
async function refundedOf(c: Contract, paymentId: string): Promise<string> {
  const shown = await operatorRequest(c.driver.t, 'GET', `/payments/${paymentId}`);
  assert.equal(shown.status, 200, JSON.stringify(shown.body));
  return shown.body.refunded;
}

/** After what happened to a payment's refunds: its refunded total, and its events after payment_success. */
async function assertRefunds(
  c: Contract,
  payment: PaymentBody,
  refunded: string,
  events: string[],
): Promise<void> {
  assert.equal(await refundedOf(c, payment.payment_id), refunded);
  assert.deepEqual(await eventsOf(c, payment.payment_id), ['payment_success', ...events]);
}

/** The processor ends one of our refunds, later. */
function settle(c: Contract, refundId: string, status: 'succeeded' | 'failed'): Promise<void> {
  c.later();
  return c.driver.settleRefund(refundId, status);
}

function assertAnswer(answer: Answer, status: number, refundStatus: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.status, refundStatus);
}

/**
 * Refunds `amount` of a payment (Integration API) and delivers what the processor says about the request (Stripe's
 * charge.refunded), so that it arrives before whatever ends the refund, as it does from Stripe. Returns the answer.
 */
async function refund(c: Contract, payment: PaymentBody, amount: string): Promise<Answer> {
  c.later();
  const asked = await c.integrator.refund(payment.payment_id, amount);
  await c.driver.deliverEvents();
  return asked;
}

/**
 * A pending refund of `amount` of a payment by the refunds_pending card: 202 pending, nothing refunded yet, and
 * no event about it yet whatever the processor sent. Returns its refund id.
 */
async function pendingRefund(c: Contract, payment: PaymentBody, amount: string): Promise<string> {
  const asked = await c.driver.refundsPending(() => refund(c, payment, amount));
  assertAnswer(asked, 202, 'pending');
  assert.equal(await refundedOf(c, payment.payment_id), '0.00');
  const about = (await c.integrator.events()).filter(
    (e) => e.data.refund?.refund_id === asked.body.refund_id,
  );
  assert.deepEqual(about, [], 'no event about it yet');
  return asked.body.refund_id;
}

/** An APM payment that the customer approves at the provider (a redirect, or a QR code scanned). */
async function apmApproved(c: Contract, method: 'alipay' | 'wechat_pay'): Promise<void> {
  const started = await pay(c, await c.driver.apm(method));
  assertWaiting(c, started, method);
  assert.equal(started.method, method);
  assert.equal(started.card, null);
  assert.deepEqual(await eventsOf(c, started.payment_id), []);
  await c.driver.answer(started, true);
  const done = await reread(c, started.payment_id);
  assert.equal(done.status, 'succeeded');
  assert.equal(done.amount, '1217.40');
  assert.equal(done.next_action, null);
  assert.deepEqual(await eventsOf(c, started.payment_id), ['payment_success']);
}

/** A 3DS payment the cardholder passes or fails. */
async function threeDs(c: Contract, approve: boolean): Promise<PaymentBody> {
  const started = await pay(c, await c.driver.card('three_ds'));
  assertWaiting(c, started, 'three_ds');
  assert.deepEqual(await eventsOf(c, started.payment_id), []);
  await c.driver.answer(started, approve);
  const done = await reread(c, started.payment_id);
  assert.equal(done.next_action, null);
  return done;
}

/** A saved card of `card`, active at once. */
async function savedCard(c: Contract, card: TestCard): Promise<string> {
  const saved = await c.tenant.client.saveCard(await c.driver.cardToSave(card));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  assert.equal(saved.body.status, 'active');
  return saved.body.card_id;
}

/** A £500.00 monthly schedule on a saved `card`, charged off session on its first due date; its payment events. */
async function recurringCharge(c: Contract, card: TestCard): Promise<ListedEvent[]> {
  const cardId = await savedCard(c, card);
  const created = await createSchedule({ client: c.tenant.client, cardId }, { pure_amount: '500.00' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const schedules = integrationSchedules(c.driver.t, c.integrator.api);
  const run = await schedules.run(created.body.next_due_date);
  assert.equal(run.status, 200, JSON.stringify(run.body));
  await c.driver.deliverEvents();
  // A second run on the same date charges nothing more.
  assert.equal((await schedules.run(created.body.next_due_date)).status, 200);
  await c.driver.deliverEvents();
  const charged = (await c.integrator.events()).filter(
    (e) => e.data.payment?.schedule_id === created.body.schedule_id,
  );
  for (const e of charged) {
    assert.equal(e.data.payment.amount, '507.25', '£500.00 and the 1.45 % card fee');
    assert.equal(e.data.payment.processor, c.driver.name);
  }
  return charged;
}

/** The contract's cases: each gets a new integrator and tenant on the processor's app. */
const CASES: { name: string; run(c: Contract): Promise<void> }[] = [
  {
    name: 'a card payment succeeds at once: payment_success, the session completed',
    async run(c) {
      const payment = await paid(c);
      assert.equal(payment.next_action, null);
      assert.equal(payment.failure_code, null);
      assert.equal(payment.method, 'card');
      assert.deepEqual([payment.card.brand, payment.card.last4], ['visa', '4242']);
      assert.deepEqual(await eventsOf(c, payment.payment_id), ['payment_success']);
      assert.equal((await c.integrator.api.session(c.tenant.sessionId)).body.status, 'completed');
      // What the processor says about it afterwards changes nothing and records nothing more.
      await c.driver.deliverEvents();
      assert.equal((await reread(c, payment.payment_id)).status, 'succeeded');
      assert.deepEqual(await eventsOf(c, payment.payment_id), ['payment_success']);
    },
  },
  {
    name: 'a decline (insufficient funds): failed with the issuer’s reason, payment_failed; another card then pays',
    async run(c) {
      const declined = await pay(c, await c.driver.card('insufficient_funds'));
      assert.equal(declined.status, 'failed');
      assert.equal(declined.failure_code, 'insufficient_funds');
      assert.equal(declined.failure_message, 'Your card has insufficient funds.');
      const [failed, ...rest] = (await c.integrator.events()).filter(
        (e) => e.data.payment?.payment_id === declined.payment_id,
      );
      assert.deepEqual(rest, []);
      assert.equal(failed?.type, 'payment_failed');
      assert.equal(failed.data.payment.failure_code, 'insufficient_funds');
      assert.equal((await c.integrator.api.session(c.tenant.sessionId)).body.status, 'active');
      c.later();
      const retried = await paid(c);
      assert.deepEqual(await eventsOf(c, retried.payment_id), ['payment_success']);
    },
  },
  {
    name: '3DS passed: requires_action, then succeeded and payment_success',
    async run(c) {
      const done = await threeDs(c, true);
      assert.equal(done.status, 'succeeded');
      assert.equal(done.failure_code, null);
      assert.deepEqual(await eventsOf(c, done.payment_id), ['payment_success']);
    },
  },
  {
    name: '3DS failed: requires_action, then failed (authentication_failed) and payment_failed',
    async run(c) {
      const done = await threeDs(c, false);
      assert.equal(done.status, 'failed');
      assert.equal(done.failure_code, 'authentication_failed');
      assert.equal(done.failure_message, 'The card issuer could not authenticate this payment.');
      assert.deepEqual(await eventsOf(c, done.payment_id), ['payment_failed']);
    },
  },
  {
    name: 'Alipay (a redirect to the provider) approved: requires_action, then succeeded',
    run: (c) => apmApproved(c, 'alipay'),
  },
  {
    name: 'WeChat Pay (a QR code) approved: requires_action, then succeeded',
    run: (c) => apmApproved(c, 'wechat_pay'),
  },
  {
    name: 'a saved card: saved active, listed, and a payment with saved_card_id succeeds',
    async run(c) {
      const cardId = await savedCard(c, 'visa');
      const cards = await c.tenant.client.cards();
      assert.deepEqual(
        cards.body.cards.map((card: { card_id: string; last4: string }) => [card.card_id, card.last4]),
        [[cardId, '4242']],
      );
      const payment = await pay(c, { saved_card_id: cardId });
      assert.equal(payment.status, 'succeeded', JSON.stringify(payment));
      assert.equal(payment.card.last4, '4242');
      assert.deepEqual(await eventsOf(c, payment.payment_id), ['payment_success']);
    },
  },
  {
    name: 'a recurring charge off session succeeds: one payment_success, charged once',
    async run(c) {
      const charged = await recurringCharge(c, 'visa');
      assert.deepEqual(
        charged.map((e) => e.type),
        ['payment_success'],
      );
      assert.equal(charged[0]!.data.payment.status, 'succeeded');
    },
  },
  {
    name: 'a recurring charge off session declined: payment_failed (card_declined) with the retry date',
    async run(c) {
      const charged = await recurringCharge(c, 'declined_once_saved');
      assert.deepEqual(
        charged.map((e) => e.type),
        ['payment_failed'],
      );
      const { payment, retry_on } = charged[0]!.data;
      assert.equal(payment.status, 'failed');
      assert.equal(payment.failure_code, 'card_declined');
      assert.equal(payment.failure_message, 'Your card was declined.');
      assert.match(String(retry_on), /^\d{4}-\d{2}-\d{2}$/);
    },
  },
  {
    name: 'a full refund (Operator API): succeeded at once, payment_refunded, nothing left to refund',
    async run(c) {
      const payment = await paid(c);
      c.later();
      const refunded = await operatorRequest(c.driver.t, 'POST', `/payments/${payment.payment_id}/refunds`);
      assertAnswer(refunded, 201, 'succeeded');
      assert.equal(refunded.body.amount, '1217.40');
      await c.driver.deliverEvents();
      await assertRefunds(c, payment, '1217.40', ['payment_refunded 1217.40 succeeded']);
      const again = await operatorRequest(c.driver.t, 'POST', `/payments/${payment.payment_id}/refunds`);
      assert.equal(again.status, 409, JSON.stringify(again.body));
    },
  },
  {
    name: 'a partial refund (Integration API): succeeded, payment_refunded; no more than what is left',
    async run(c) {
      const payment = await paid(c);
      assertAnswer(await refund(c, payment, '200.00'), 201, 'succeeded');
      assert.equal((await c.integrator.refund(payment.payment_id, '1017.41')).status, 400);
      await assertRefunds(c, payment, '200.00', ['payment_refunded 200.00 succeeded']);
    },
  },
  {
    name: 'a refund pending, then succeeded: 202 pending and no event until the processor says it succeeded',
    async run(c) {
      const payment = await paid(c, 'refunds_pending');
      const refundId = await pendingRefund(c, payment, '200.00');
      // What is being refunded is not refundable twice.
      assert.equal((await c.integrator.refund(payment.payment_id, '1017.41')).status, 400);
      await settle(c, refundId, 'succeeded');
      await assertRefunds(c, payment, '200.00', ['payment_refunded 200.00 succeeded']);
    },
  },
  {
    name: 'a refund pending, then failed: refund_failed with the processor’s reason, nothing refunded, refundable again',
    async run(c) {
      const payment = await paid(c, 'refunds_pending');
      const refundId = await pendingRefund(c, payment, '300.00');
      await settle(c, refundId, 'failed');
      await assertRefunds(c, payment, '0.00', ['refund_failed 300.00 failed expired_or_canceled_card']);
      const failed = (await c.integrator.events()).find((e) => e.type === 'refund_failed')!;
      assert.equal(failed.data.refund.refund_id, refundId);
      assert.match(failed.data.refund.failure_message, /did not go back to the cardholder/);
      // The amount is refundable again, all of it.
      await pendingRefund(c, payment, '1217.40');
    },
  },
  {
    name: 'a refund that succeeded fails later: refund_failed, the refunded total back to what it was',
    async run(c) {
      const payment = await paid(c);
      const asked = await refund(c, payment, '200.00');
      assertAnswer(asked, 201, 'succeeded');
      await assertRefunds(c, payment, '200.00', ['payment_refunded 200.00 succeeded']);
      await settle(c, asked.body.refund_id, 'failed');
      await assertRefunds(c, payment, '0.00', [
        'payment_refunded 200.00 succeeded',
        'refund_failed 200.00 failed expired_or_canceled_card',
      ]);
    },
  },
  {
    name: 'a dispute opened, then lost: payment_disputed, then payment_dispute_closed',
    async run(c) {
      const payment = await paid(c);
      c.later();
      await c.driver.dispute(payment, 'open');
      assert.deepEqual(await eventsOf(c, payment.payment_id), [
        'payment_success',
        'payment_disputed open 1217.40',
      ]);
      c.later();
      await c.driver.dispute(payment, 'lost');
      assert.deepEqual(await eventsOf(c, payment.payment_id), [
        'payment_success',
        'payment_disputed open 1217.40',
        'payment_dispute_closed lost 1217.40',
      ]);
      // The payment itself stays succeeded.
      assert.equal((await reread(c, payment.payment_id)).status, 'succeeded');
    },
  },
];

for (const driver of [sandboxDriver(), stripeDriver()]) {
  describe(`processor contract: ${driver.name}`, () => {
    before(() => driver.start());
    after(() => driver.close());

    for (const { name, run } of CASES) {
      it(name, async () => {
        const integrator = await integratorOn(driver);
        await run({
          driver,
          integrator,
          tenant: await newTenant(driver.t, integrator.api),
          later: () => driver.t.clock.advance(1000),
        });
      });
    }
  });
}
