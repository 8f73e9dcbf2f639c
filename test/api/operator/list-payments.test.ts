import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, integrationApi, operatorRequest, UNLIMITED } from '../../support/api-client.ts';
import { paymentKeys } from '../../support/fixtures.ts';
import { assertOperatorTokenRequired, cardPayment } from '../../support/operation-tests.ts';
import { newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/operator/payments (listPayments)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());
  const integrator = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Listed' }));
  /** The fresh integrator's payments, oldest first: succeeded, failed, requires_action, succeeded. */
  const made: { payment_id: string; session_id: string; status: string }[] = [];
  for (const pan of [PAN.visa, '4000000000000002', PAN.threeDsAlways, PAN.mastercard]) {
    made.push(await cardPayment(t, (await newTenant(t, integrator)).client, pan));
    t.clock.advance(1000);
  }
  await cardPayment(t, (await newTenant(t, api)).client);

  const list = (query: string) => operatorRequest(t, 'GET', `/payments?${query}`);
  const ids = (answer: { body: { data: { payment_id: string }[] } }) =>
    answer.body.data.map((payment) => payment.payment_id);
  const newestFirst = () => made.map((payment) => payment.payment_id).reverse();

  it('200: the payments newest first, each with its integrator and refunded; filtered by integrator', async () => {
    const answer = await list(`integrator_id=${integrator.integratorId}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), ['data', 'has_more']);
    assert.deepEqual(ids(answer), newestFirst());
    assert.equal(answer.body.has_more, false);
    for (const payment of answer.body.data) {
      assert.deepEqual(Object.keys(payment).sort(), paymentKeys('integrator_id', 'refunded'));
      assert.equal(payment.integrator_id, integrator.integratorId);
      assert.equal(payment.refunded, '0.00');
    }
    const all = await list('limit=100');
    assert.equal(all.body.data.length, 5, 'every integrator’s payments');
  });

  it('filters by status and by session', async () => {
    const only = `integrator_id=${integrator.integratorId}`;
    assert.deepEqual(ids(await list(`${only}&status=succeeded`)), [made[3]!.payment_id, made[0]!.payment_id]);
    assert.deepEqual(ids(await list(`${only}&status=failed`)), [made[1]!.payment_id]);
    assert.deepEqual(ids(await list(`${only}&status=requires_action`)), [made[2]!.payment_id]);
    assert.deepEqual(ids(await list(`${only}&status=canceled`)), []);
    assert.deepEqual(ids(await list(`session_id=${made[1]!.session_id}`)), [made[1]!.payment_id]);
  });

  it('pages: limit, then starting_after the last payment while has_more', async () => {
    const only = `integrator_id=${integrator.integratorId}`;
    const first = await list(`${only}&limit=3`);
    assert.deepEqual(ids(first), newestFirst().slice(0, 3));
    assert.equal(first.body.has_more, true);
    const next = await list(`${only}&limit=3&starting_after=${ids(first).at(-1)}`);
    assert.deepEqual(ids(next), newestFirst().slice(3));
    assert.equal(next.body.has_more, false);
  });

  it('400 invalid_request for bad parameters', async () => {
    for (const [query, detail] of [
      ['limit=0', /^Invalid querystring: limit: Ensure this value is greater than or equal to 1\.$/],
      ['limit=101', /limit/],
      ['status=nope', /status: Not a valid choice\. Choose one of: requires_action, processing, succeeded/],
      ['starting_after=pay_nope', /^Invalid querystring: starting_after: No payment pay_nope\./],
      ['integrator_id=nope', /integrator_id/],
      ['colour=blue', /colour/],
    ] as const) {
      assertError(await list(query), 400, 'invalid_request', detail);
    }
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(t, { method: 'GET', url: '/api/operator/payments' });
  });
});
