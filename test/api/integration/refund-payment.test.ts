import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Answer,
  type Api,
  assertAnswer,
  assertError,
  operatorRequest,
  send,
} from '../../support/api-client.ts';
import { runJobs, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardPayment, paidOutRun, paidTenant } from '../../support/operation-tests.ts';
import {
  count,
  newTenant,
  paymentEvents,
  processorWith,
  startPaymentApp,
  withPaymentsOver,
} from '../../support/payment-client.ts';

describe('POST /api/third-party/payments/{payment_id}/refunds/ (refundPayment)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    // A £1200.00 card payment costs £1217.40 (1.45 %).
    ({ t, api, otherApi } = await startPaymentApp());
  });
  after(() => t.close());

  const refund = (
    paymentId: string,
    body?: object,
    headers: Record<string, string> = {},
    who = api,
  ): Promise<Answer> =>
    send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${paymentId}/refunds/`,
      headers: { ...tokenHeader(who.serverToken), ...headers },
      ...(body ? { payload: body } : {}),
    });
  const refundsOf = (paymentId: string) => count(t, 'refunds WHERE payment_id = $1', [paymentId]);
  const refunded = async (paymentId: string) =>
    (
      await send(t, {
        method: 'GET',
        url: '/api/third-party/payments/?limit=100',
        headers: tokenHeader(api.serverToken),
      })
    ).body.data.find((payment: { payment_id: string }) => payment.payment_id === paymentId).refunded;

  it('201: a partial refund, then (no body) the rest, each with payment_refunded; the list shows refunded', async () => {
    const { payment } = await paidTenant(t, api);
    const id = payment.payment_id;
    t.clock.advance(1000);
    const partial = await refund(id, { amount: '100.00' });
    assert.equal(partial.status, 201, JSON.stringify(partial.body));
    assert.match(partial.body.refund_id, /^ref_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      { ...partial.body, refund_id: undefined, payment: undefined },
      {
        refund_id: undefined,
        payment_id: id,
        amount: '100.00',
        status: 'succeeded',
        created_at: t.clock.now().toISOString(),
        payment: undefined,
      },
    );
    const { next_action: _, ...view } = payment;
    assert.deepEqual(partial.body.payment, { ...view, updated_at: t.clock.now().toISOString() });
    assert.equal(await refunded(id), '100.00');
    const rest = await refund(id);
    assert.deepEqual([rest.status, rest.body.amount], [201, '1117.40']);
    assert.equal(await refunded(id), '1217.40');
    assert.deepEqual(await paymentEvents(t, id), ['payment_success', 'payment_refunded', 'payment_refunded']);
    assertError(await refund(id), 409, 'conflict', /^This payment has been refunded in full already\.$/);
    assert.equal(await refundsOf(id), 2);
  });

  it('Idempotency-Key: the same key and amount is 200 the same refund; another amount is 422', async () => {
    const { payment } = await paidTenant(t, api);
    const id = payment.payment_id;
    const first = await refund(id, { amount: '50.00' }, { 'idempotency-key': 'refund-once' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assertAnswer(
      await refund(id, { amount: '50.00' }, { 'idempotency-key': 'refund-once' }),
      200,
      first.body,
    );
    assertError(
      await refund(id, { amount: '60.00' }, { 'idempotency-key': 'refund-once' }),
      422,
      'idempotency_mismatch',
      /was used for refund ref_\w+ of 50\.00/,
    );
    assert.deepEqual([await refundsOf(id), await refunded(id)], [1, '50.00']);
  });

  it('202 pending when the processor’s answer is lost; a job finishes it', async () => {
    const { payment } = await paidTenant(t, api);
    const real = t.app.ctx.processor;
    const lost = processorWith(real, {
      refund: async (request) => {
        await real.refund(request);
        throw new Error('connection reset');
      },
    });
    const answer = await withPaymentsOver(t, lost, () => refund(payment.payment_id, { amount: '300.00' }));
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual([answer.body.status, answer.body.amount], ['pending', '300.00']);
    assert.equal(await refunded(payment.payment_id), '0.00', 'only succeeded refunds count');
    t.clock.advance(3 * 60_000);
    await runJobs(t);
    assert.equal(await refunded(payment.payment_id), '300.00');
  });

  it('400 for an amount above what is left or not in pounds, and for a bad Idempotency-Key; nothing refunded', async () => {
    const { payment } = await paidTenant(t, api);
    const id = payment.payment_id;
    assertAnswer(await refund(id, { amount: '1217.41' }), 400, {
      amount: ['Enter an amount from 0.01 to 1217.40.'],
    });
    assertAnswer(await refund(id, { amount: 'abc' }), 400, {
      amount: ['Enter an amount in pounds, e.g. "100.00".'],
    });
    assertAnswer(await refund(id, { amount: 5 }), 400, {
      amount: ['Not a valid string: send the value in quotes.'],
    });
    assertError(
      await refund(id, { amount: '1.00' }, { 'idempotency-key': 'has space' }),
      400,
      'invalid_request',
      /^Idempotency-Key: Use 1 to 255 printable ASCII characters without spaces\.$/,
    );
    assert.equal(await refundsOf(id), 0);
  });

  it('409 for a payment that did not succeed, one the processor refuses, and one paid out to the landlord', async () => {
    const declined = await cardPayment(t, (await newTenant(t, api)).client, '4000000000000002');
    assertError(
      await refund(declined.payment_id),
      409,
      'conflict',
      /^Only a succeeded payment can be refunded; this one is failed\.$/,
    );
    const { payment } = await paidTenant(t, api);
    const refusing = processorWith(t.app.ctx.processor, {
      refund: async () => ({
        status: 'refused',
        code: 'refund_refused',
        message: 'The acquirer is closed today.',
      }),
    });
    assertError(
      await withPaymentsOver(t, refusing, () => refund(payment.payment_id, { amount: '10.00' })),
      409,
      'conflict',
      /^The processor refused the refund: The acquirer is closed today\.$/,
    );
    assert.equal(await refunded(payment.payment_id), '0.00');

    const { tenant, run } = await paidOutRun(t, api);
    assert.equal(
      (await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/confirm`)).status,
      200,
    );
    const id = tenant.payment.payment_id;
    assertError(
      await refund(id, { amount: '10.00' }),
      409,
      'paid_out',
      new RegExp(
        `^The rent of payment ${id} has been paid out to the landlord in a confirmed payout, so it cannot be refunded with a server token\\.`,
      ),
    );
    assert.equal(await refundsOf(id), 0);
  });

  it('400 for an id that is not a payment id; 404 for an unknown one', async () => {
    assertError(
      await refund('nope'),
      400,
      'invalid_request',
      /^Invalid params: payment_id: Enter a payment id: "pay_" followed by letters and digits\.$/,
    );
    assertError(
      await refund('pay_nope'),
      404,
      'not_found',
      /^No payment pay_nope\. List yours with GET \/api\/third-party\/payments\/\.$/,
    );
  });

  it('another integrator’s payment is 404, as an unknown one; nothing is refunded', async () => {
    const { payment } = await paidTenant(t, otherApi);
    assertError(
      await refund(payment.payment_id, { amount: '10.00' }, {}, api),
      404,
      'not_found',
      new RegExp(`^No payment ${payment.payment_id}\\. List yours`),
    );
    assert.equal(await refundsOf(payment.payment_id), 0);
  });

  it('401 without a token; nothing is refunded', async () => {
    const { payment } = await paidTenant(t, api);
    const answer = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${payment.payment_id}/refunds/`,
      payload: { amount: '10.00' },
    });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
    assert.equal(await refundsOf(payment.payment_id), 0);
  });
});
