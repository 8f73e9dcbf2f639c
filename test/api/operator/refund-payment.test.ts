import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type Answer, assertError, operatorRequest, send } from '../../support/api-client.ts';
import { OPERATOR_TOKEN } from '../../support/helpers.ts';
import {
  assertFieldErrors,
  assertIdChecked,
  assertOperatorTokenRequired,
  cardPayment,
  paidTenant,
} from '../../support/operation-tests.ts';
import { count, newTenant, paymentEvents, startPaymentApp } from '../../support/payment-client.ts';

describe('POST /api/operator/payments/{payment_id}/refunds (refundPayment)', async () => {
  // A £1200.00 card payment costs £1217.40 (1.45 %).
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const refund = (paymentId: string, body?: object, headers: Record<string, string> = {}): Promise<Answer> =>
    send(t, {
      method: 'POST',
      url: `/api/operator/payments/${paymentId}/refunds`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...headers },
      ...(body ? { payload: body } : {}),
    });
  const refundsOf = (paymentId: string) => count(t, 'refunds WHERE payment_id = $1', [paymentId]);

  it('201: a partial refund, then (no body) the rest; each with payment_refunded; GET shows refunded', async () => {
    const { payment } = await paidTenant(t, api);
    const id = payment.payment_id;
    t.clock.advance(1000);
    const partial = await refund(id, { amount: '100.00' });
    assert.equal(partial.status, 201, JSON.stringify(partial.body));
    assert.deepEqual(Object.keys(partial.body).sort(), [
      'amount',
      'created_at',
      'payment',
      'payment_id',
      'refund_id',
      'status',
    ]);
    assert.match(partial.body.refund_id, /^ref_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      [partial.body.payment_id, partial.body.amount, partial.body.status, partial.body.created_at],
      [id, '100.00', 'succeeded', t.clock.now().toISOString()],
    );
    assert.equal(partial.body.payment.status, 'succeeded');
    assert.equal((await operatorRequest(t, 'GET', `/payments/${id}`)).body.refunded, '100.00');
    t.clock.advance(1000);
    const rest = await refund(id);
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    assert.equal(rest.body.amount, '1117.40');
    assert.equal((await operatorRequest(t, 'GET', `/payments/${id}`)).body.refunded, '1217.40');
    assert.deepEqual(await paymentEvents(t, id), ['payment_success', 'payment_refunded', 'payment_refunded']);
    assertError(await refund(id), 409, 'conflict', /^This payment has been refunded in full already\.$/);
    assert.equal(await refundsOf(id), 2);
  });

  it('Idempotency-Key: the same key and amount again is 200 the same refund; another amount is 422', async () => {
    const { payment } = await paidTenant(t, api);
    const id = payment.payment_id;
    const first = await refund(id, { amount: '50.00' }, { 'idempotency-key': 'refund-once' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const again = await refund(id, { amount: '50.00' }, { 'idempotency-key': 'refund-once' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assertError(
      await refund(id, { amount: '60.00' }, { 'idempotency-key': 'refund-once' }),
      422,
      'idempotency_mismatch',
      /was used for refund ref_\w+ of 50\.00/,
    );
    assert.equal(await refundsOf(id), 1);
    assert.equal((await operatorRequest(t, 'GET', `/payments/${id}`)).body.refunded, '50.00');
  });

  it('400 for an amount above what is left or not in pounds, and for a bad Idempotency-Key; nothing refunded', async () => {
    const { payment } = await paidTenant(t, api);
    const id = payment.payment_id;
    await assertFieldErrors(
      (body) => refund(id, body),
      [
        [{ amount: '1217.41' }, { amount: ['Enter an amount from 0.01 to 1217.40.'] }],
        [{ amount: 'abc' }, { amount: ['Enter an amount in pounds, e.g. "100.00".'] }],
      ],
    );
    assertError(
      await refund(id, { amount: '1.00' }, { 'idempotency-key': 'has space' }),
      400,
      'invalid_request',
      /^Idempotency-Key: Use 1 to 255 printable ASCII characters without spaces\.$/,
    );
    assert.equal(await refundsOf(id), 0);
    assert.deepEqual(await paymentEvents(t, id), ['payment_success']);
  });

  it('409 for a payment that did not succeed; 400 for a malformed id; 404 for an unknown one', async () => {
    const declined = await cardPayment(t, (await newTenant(t, api)).client, '4000000000000002');
    assertError(
      await refund(declined.payment_id),
      409,
      'conflict',
      /^Only a succeeded payment can be refunded; this one is failed\.$/,
    );
    assert.equal(await refundsOf(declined.payment_id), 0);
    await assertIdChecked((id) => refund(id), 'payment_id', 'pay_nope', /^No payment pay_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; nothing is refunded', async () => {
    const { payment } = await paidTenant(t, api);
    await assertOperatorTokenRequired(t, {
      method: 'POST',
      url: `/api/operator/payments/${payment.payment_id}/refunds`,
      payload: { amount: '1.00' },
    });
    assert.equal(await refundsOf(payment.payment_id), 0);
  });
});
