import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../../src/audit/actor.ts';
import { PaymentService } from '../../../src/payments/service.ts';
import { type Answer, type Api, assertError, send } from '../../support/api-client.ts';
import { CONTRACT_PAYMENT_KEYS } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN, runJobs, type TestApp } from '../../support/helpers.ts';
import {
  cardToken,
  count,
  newTenant,
  PAN,
  processorWith,
  startPaymentApp,
  withPaymentsOver,
} from '../../support/payment-client.ts';

const OPERATOR: Actor = { kind: 'operator_token', via: 'api' };

/** A payment of £1,217.40 (£1,200 and the 1.45 % card fee) that succeeded. */
async function paidPayment(t: TestApp, api: Api): Promise<string> {
  const tenant = await newTenant(t, api);
  const paid = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
  assert.equal(paid.status, 201, JSON.stringify(paid.body));
  assert.equal(paid.body.amount, '1217.40');
  return paid.body.payment_id;
}

function refund(t: TestApp, paymentId: string, amount?: string, key?: string): Promise<Answer> {
  return send(t, {
    method: 'POST',
    url: `/api/operator/payments/${paymentId}/refunds`,
    headers: {
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    ...(amount === undefined ? {} : { payload: { amount } }),
  });
}

/** What rentpay and the sandbox acquirer each hold about a payment's refunds. */
async function ledger(t: TestApp, paymentId: string) {
  const [row] = await t.db.query<{
    refunded: string;
    charge_refunded: string;
    sandbox_refunds: number;
    succeeded: number;
    pending: number;
    failed: number;
    events: number;
  }>(
    `SELECT p.refunded_pence::text AS refunded, c.refunded_pence::text AS charge_refunded,
            (SELECT count(*)::int FROM sandbox_refunds s WHERE s.charge_id = c.id AND s.status = 'refunded')
              AS sandbox_refunds,
            (SELECT count(*)::int FROM refunds r WHERE r.payment_id = p.id AND r.status = 'succeeded') AS succeeded,
            (SELECT count(*)::int FROM refunds r WHERE r.payment_id = p.id AND r.status = 'pending') AS pending,
            (SELECT count(*)::int FROM refunds r WHERE r.payment_id = p.id AND r.status = 'failed') AS failed,
            (SELECT count(*)::int FROM events e
              WHERE e.type = 'payment_refunded' AND e.data->'payment'->>'payment_id' = p.id) AS events
       FROM payments p JOIN sandbox_charges c ON c.id = p.processor_payment_id
      WHERE p.id = $1`,
    [paymentId],
  );
  return {
    refunded: Number(row!.refunded),
    chargeRefunded: Number(row!.charge_refunded),
    sandboxRefunds: row!.sandbox_refunds,
    succeeded: row!.succeeded,
    pending: row!.pending,
    failed: row!.failed,
    events: row!.events,
  };
}

/** The ledger of a payment whose `refunds` refunds, of `pence` in all, all succeeded. */
function settled(pence: number, refunds: number) {
  return {
    refunded: pence,
    chargeRefunded: pence,
    sandboxRefunds: refunds,
    succeeded: refunds,
    pending: 0,
    failed: 0,
    events: refunds,
  };
}

describe('operator refunds: pending first, idempotent by key, finished by a job', () => {
  let t: TestApp;
  let api: Api;

  before(async () => {
    ({ t, api } = await startPaymentApp());
  });
  after(() => t.close());

  it('a retry with the same Idempotency-Key answers 200 with the same refund; the processor refunds once', async () => {
    const paymentId = await paidPayment(t, api);
    const first = await refund(t, paymentId, '100.00', 'refund-key-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.status, 'succeeded');
    assert.deepEqual(Object.keys(first.body).sort(), [
      'amount',
      'created_at',
      'payment',
      'payment_id',
      'refund_id',
      'status',
    ]);
    for (let i = 0; i < 3; i++) {
      const again = await refund(t, paymentId, '100.00', 'refund-key-1');
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.refund_id, first.body.refund_id);
      assert.equal(again.body.status, 'succeeded');
      assert.equal(again.body.amount, '100.00');
    }
    assert.deepEqual(await ledger(t, paymentId), settled(10_000, 1));

    // The same key on another payment is another refund: keys belong to a payment.
    const other = await paidPayment(t, api);
    const elsewhere = await refund(t, other, '100.00', 'refund-key-1');
    assert.equal(elsewhere.status, 201);
    assert.notEqual(elsewhere.body.refund_id, first.body.refund_id);

    // "Everything left" with a key: a retry without an amount, or with the amount it came to, is the same refund.
    const rest = await refund(t, paymentId, undefined, 'refund-key-rest');
    assert.equal(rest.status, 201);
    assert.equal(rest.body.amount, '1117.40');
    assert.equal(
      (await refund(t, paymentId, undefined, 'refund-key-rest')).body.refund_id,
      rest.body.refund_id,
    );
    const same = await refund(t, paymentId, '1117.40', 'refund-key-rest');
    assert.equal(same.status, 200);
    assert.equal(same.body.refund_id, rest.body.refund_id);
    assert.equal((await ledger(t, paymentId)).refunded, 121_740);
    assert.equal((await ledger(t, paymentId)).sandboxRefunds, 2);
    // Without a key, each request is a new refund (here: nothing is left).
    assertError(await refund(t, paymentId), 409, 'conflict', /refunded in full already/);
  });

  it('the same key with another amount answers 422 idempotency_mismatch and refunds nothing', async () => {
    const paymentId = await paidPayment(t, api);
    assert.equal((await refund(t, paymentId, '100.00', 'mismatch-key')).status, 201);
    assertError(
      await refund(t, paymentId, '200.00', 'mismatch-key'),
      422,
      'idempotency_mismatch',
      /^Idempotency key "mismatch-key" was used for refund ref_\w+ of 100\.00; use a new key/,
    );
    assertError(await refund(t, paymentId, undefined, 'mismatch-key'), 422, 'idempotency_mismatch');
    assert.equal((await refund(t, paymentId, undefined, 'rest-key')).status, 201);
    assertError(
      await refund(t, paymentId, '100.00', 'rest-key'),
      422,
      'idempotency_mismatch',
      /of 1117\.40 \(everything left\)/,
    );
    const state = await ledger(t, paymentId);
    assert.equal(state.sandboxRefunds, 2);
    assert.equal(state.refunded, 121_740);

    for (const bad of ['', 'has space', 'x'.repeat(256), 'naïve']) {
      assertError(
        await refund(t, paymentId, '1.00', bad),
        400,
        'invalid_request',
        /^Idempotency-Key: Use 1 to 255 printable ASCII characters without spaces\.$/,
      );
    }
  });

  it('the payment_refunded event keeps the Payment’s keys, with its receipt_url, and adds the refund', async () => {
    const paymentId = await paidPayment(t, api);
    const made = await refund(t, paymentId, '50.00', 'event-key');
    const [event] = await t.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM events WHERE type = 'payment_refunded' AND data->'payment'->>'payment_id' = $1",
      [paymentId],
    );
    const data = event!.data as {
      payment: Record<string, unknown>;
      refund: Record<string, unknown>;
      payment_reference: string;
    };
    assert.deepEqual(Object.keys(data).sort(), [
      'email',
      'payment',
      'payment_reference',
      'refund',
      'user_id',
    ]);
    assert.deepEqual(Object.keys(data.payment).sort(), [...CONTRACT_PAYMENT_KEYS, 'receipt_url'].sort());
    assert.equal(
      data.payment.receipt_url,
      `/api/third-party/payments/${data.payment.payment_id}/receipt.pdf`,
    );
    assert.deepEqual(data.refund, {
      refund_id: made.body.refund_id,
      amount: '50.00',
      status: 'succeeded',
      created_at: made.body.created_at,
    });
    const { receipt_url: _, ...payment } = data.payment;
    assert.deepEqual(payment, made.body.payment);
  });

  it('a processor answer lost after it refunded: 202 pending, then the job finishes it once with one event', async () => {
    const paymentId = await paidPayment(t, api);
    let failures = 0;
    const real = t.app.ctx.processor;
    const lost = processorWith(real, {
      refund: async (request) => {
        const outcome = await real.refund(request);
        if (failures++ === 0) throw new Error('connection reset');
        return outcome;
      },
    });
    const pending = await withPaymentsOver(t, lost, () => refund(t, paymentId, '300.00', 'lost-answer'));
    assert.equal(pending.status, 202, JSON.stringify(pending.body));
    assert.equal(pending.body.status, 'pending');
    assert.equal(pending.body.amount, '300.00');
    assert.equal(pending.body.payment.payment_id, paymentId);
    assert.deepEqual(await ledger(t, paymentId), {
      refunded: 0,
      chargeRefunded: 30_000,
      sandboxRefunds: 1,
      succeeded: 0,
      pending: 1,
      failed: 0,
      events: 0,
    });
    // What is pending is not available again: at most 917.40 is left.
    const tooMuch = await refund(t, paymentId, '917.41');
    assert.deepEqual(tooMuch.body, { amount: ['Enter an amount from 0.01 to 917.40.'] });

    await runJobs(t);
    assert.equal((await ledger(t, paymentId)).pending, 1, 'not due yet');
    t.clock.advance(3 * 60_000);
    await runJobs(t);
    assert.deepEqual(await ledger(t, paymentId), settled(30_000, 1));
    const again = await refund(t, paymentId, '300.00', 'lost-answer');
    assert.equal(again.status, 200);
    assert.equal(again.body.refund_id, pending.body.refund_id);
    assert.equal(again.body.status, 'succeeded');
    t.clock.advance(60 * 60_000);
    await runJobs(t);
    assert.equal((await ledger(t, paymentId)).events, 1, 'nothing happens twice');
  });

  it('a processor not reached: 202 pending; a retry with the key finishes it, and the job then does nothing', async () => {
    const paymentId = await paidPayment(t, api);
    let failures = 0;
    const real = t.app.ctx.processor;
    const unreachable = processorWith(real, {
      refund: async (request) => {
        if (failures++ === 0) throw new Error('connect ECONNREFUSED');
        return real.refund(request);
      },
    });
    const service = new PaymentService(t.db, t.clock, unreachable);
    const first = await service.refunds.refund(paymentId, 20_000, 'unreached', OPERATOR);
    assert.equal(first.refund.status, 'pending');
    assert.equal(first.replayed, false);
    assert.equal((await ledger(t, paymentId)).sandboxRefunds, 0, 'the processor never had it');
    const retry = await service.refunds.refund(paymentId, 20_000, 'unreached', OPERATOR);
    assert.equal(retry.replayed, true);
    assert.equal(retry.refund.id, first.refund.id);
    assert.equal(retry.refund.status, 'succeeded');
    t.clock.advance(3 * 60_000);
    await runJobs(t);
    assert.deepEqual(await ledger(t, paymentId), settled(20_000, 1));
  });

  it('a crash after the pending refund committed (before the processor was asked) is healed by the job', async () => {
    const paymentId = await paidPayment(t, api);
    // The first step alone, as if the process died right after its commit.
    const { refund: pending } = await t.app.ctx.payments.refunds.beginRefund(
      paymentId,
      undefined,
      'crash-key',
      OPERATOR,
    );
    assert.equal(pending.status, 'pending');
    assert.equal(Number(pending.amount_pence), 121_740);
    assert.equal(
      await count(t, "jobs WHERE kind = 'payment.refund' AND payload->>'refund_id' = $1", [pending.id]),
      1,
    );
    assertError(await refund(t, paymentId), 409, 'conflict', /being refunded already/);
    t.clock.advance(3 * 60_000);
    await runJobs(t);
    assert.deepEqual(await ledger(t, paymentId), settled(121_740, 1));
    const replay = await refund(t, paymentId, undefined, 'crash-key');
    assert.equal(replay.status, 200);
    assert.equal(replay.body.refund_id, pending.id);
  });

  it('a refusal: 409, the refund is failed, nothing is counted, the amount is available again; a replay answers 409', async () => {
    const paymentId = await paidPayment(t, api);
    const refusing = processorWith(t.app.ctx.processor, {
      refund: async () => ({
        status: 'refused',
        code: 'refund_refused',
        message: 'The acquirer is closed today.',
      }),
    });
    await withPaymentsOver(t, refusing, async () => {
      assertError(
        await refund(t, paymentId, '100.00', 'refused-key'),
        409,
        'conflict',
        /^The processor refused the refund: The acquirer is closed today\.$/,
      );
      assertError(await refund(t, paymentId, '100.00', 'refused-key'), 409, 'conflict', /closed today/);
    });
    const state = await ledger(t, paymentId);
    assert.equal(state.failed, 1);
    assert.equal(state.refunded, 0);
    assert.equal(state.events, 0);
    const [row] = await t.db.query<{ failure_code: string; failure_message: string }>(
      "SELECT failure_code, failure_message FROM refunds WHERE payment_id = $1 AND status = 'failed'",
      [paymentId],
    );
    assert.deepEqual(
      { ...row },
      { failure_code: 'refund_refused', failure_message: 'The acquirer is closed today.' },
    );
    const full = await refund(t, paymentId);
    assert.equal(full.status, 201);
    assert.equal(full.body.amount, '1217.40');
  });

  it('concurrent refunds never refund more than was paid; concurrent retries of one key make one refund', async () => {
    const paymentId = await paidPayment(t, api);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => refund(t, paymentId, '300.00', `concurrent-${i}`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, 201, 400, 400], JSON.stringify(answers.map((a) => a.body)));
    for (const refused of answers.filter((a) => a.status === 400)) {
      assert.deepEqual(refused.body, { amount: ['Enter an amount from 0.01 to 17.40.'] });
    }
    const state = await ledger(t, paymentId);
    assert.equal(state.refunded, 120_000);
    assert.equal(state.chargeRefunded, 120_000);
    assert.equal(state.sandboxRefunds, 4);
    assert.equal(state.events, 4);

    const other = await paidPayment(t, api);
    const same = await Promise.all(Array.from({ length: 5 }, () => refund(t, other, '10.00', 'one-key')));
    assert.deepEqual(
      same.map((a) => a.status).sort(),
      [200, 200, 200, 200, 201],
      JSON.stringify(same.map((a) => a.body)),
    );
    assert.equal(new Set(same.map((a) => a.body.refund_id)).size, 1);
    assert.deepEqual(await ledger(t, other), settled(1_000, 1));
  });

  it('the sandbox processor refunds once per idempotency key and answers the same', async () => {
    const paymentId = await paidPayment(t, api);
    const [payment] = await t.db.query<{ processor_payment_id: string }>(
      'SELECT processor_payment_id FROM payments WHERE id = $1',
      [paymentId],
    );
    const processor = t.app.ctx.processor;
    const request = {
      idempotencyKey: 'sandbox-key',
      processorPaymentId: payment!.processor_payment_id,
      amountPence: 700,
    };
    const answers = await Promise.all([1, 2, 3].map(() => processor.refund(request)));
    assert.deepEqual(answers, [{ status: 'refunded' }, { status: 'refunded' }, { status: 'refunded' }]);
    assert.equal((await ledger(t, paymentId)).chargeRefunded, 700);
    assert.equal((await ledger(t, paymentId)).sandboxRefunds, 1);
    const reused = await processor.refund({ ...request, amountPence: 800 });
    assert.equal(reused.status, 'refused');
    const tooMuch = await processor.refund({
      ...request,
      idempotencyKey: 'sandbox-key-2',
      amountPence: 121_741,
    });
    assert.equal(tooMuch.status, 'refused');
    assert.deepEqual(
      await processor.refund({ ...request, idempotencyKey: 'sandbox-key-2', amountPence: 121_741 }),
      tooMuch,
    );
    assert.equal((await ledger(t, paymentId)).chargeRefunded, 700);
  });
});
