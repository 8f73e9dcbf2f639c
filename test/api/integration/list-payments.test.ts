import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, type Api, assertError, send } from '../../support/api-client.ts';
import { paymentKeys } from '../../support/fixtures.ts';
import { type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import { type Client, newTenant, startPaymentApp, type Tenant } from '../../support/payment-client.ts';

describe('GET /api/third-party/payments/ (listPayments)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  let ann: Tenant;
  let bob: Tenant;
  /** The Client API's Payments, oldest first: Ann's, Bob's declined one, Ann's second. */
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers
  let made: any[];
  before(async () => {
    // A £1200.00 card payment costs £1217.40 (1.45 %).
    ({ t, api, otherApi } = await startPaymentApp());
    ann = await newTenant(t, api);
    bob = await newTenant(t, api);
    made = [];
    for (const [client, pan] of [
      [ann.client, undefined],
      [bob.client, '4000000000000002'],
      [await ann.login(), undefined],
    ] as [Client, string | undefined][]) {
      made.push(await cardPayment(t, client, pan));
      t.clock.advance(1000);
    }
  });
  after(() => t.close());

  const list = (query = '', who: Api = api): Promise<Answer> =>
    send(t, {
      method: 'GET',
      url: `/api/third-party/payments/${query}`,
      headers: tokenHeader(who.serverToken),
    });
  const ids = (answer: Answer) =>
    answer.body.data.map((payment: { payment_id: string }) => payment.payment_id);
  /** A Client API Payment as this list shows it. */
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer
  const listed = ({ next_action: _, ...payment }: any, userId: number, refunded = '0.00') => ({
    ...payment,
    user_id: userId,
    refunded,
  });

  it('200 {data, has_more}: the caller’s payments, newest first, with user_id and refunded', async () => {
    const answer = await list();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      data: [listed(made[2], ann.userId), listed(made[1], bob.userId), listed(made[0], ann.userId)],
      has_more: false,
    });
    assert.deepEqual(Object.keys(answer.body.data[0]).sort(), paymentKeys('refunded', 'user_id'));
    assert.deepEqual(
      answer.body.data.map((payment: { status: string }) => payment.status),
      ['succeeded', 'failed', 'succeeded'],
    );
  });

  it('filters by user_id and status', async () => {
    assert.deepEqual(ids(await list(`?user_id=${ann.userId}`)), [made[2].payment_id, made[0].payment_id]);
    assert.deepEqual(ids(await list('?status=failed')), [made[1].payment_id]);
    assert.deepEqual(ids(await list(`?user_id=${bob.userId}&status=succeeded`)), []);
  });

  it('pages by limit and starting_after; a payment made meanwhile shows on the first page only', async () => {
    const first = await list('?limit=2');
    assert.deepEqual([ids(first), first.body.has_more], [[made[2].payment_id, made[1].payment_id], true]);
    const newer = await cardPayment(t, await bob.login());
    const second = await list(`?limit=2&starting_after=${made[1].payment_id}`);
    assert.deepEqual([ids(second), second.body.has_more], [[made[0].payment_id], false]);
    assert.deepEqual(ids(await list('?limit=1')), [newer.payment_id]);
  });

  it('refunded shows what was refunded of a payment', async () => {
    const refund = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${made[0].payment_id}/refunds/`,
      headers: tokenHeader(api.serverToken),
      payload: { amount: '100.00' },
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const [payment] = (await list(`?user_id=${ann.userId}&limit=100`)).body.data.filter(
      (p: { payment_id: string }) => p.payment_id === made[0].payment_id,
    );
    assert.deepEqual(payment, {
      ...listed(made[0], ann.userId, '100.00'),
      updated_at: t.clock.now().toISOString(),
    });
  });

  it('400 invalid_request for a bad status, user_id, limit, cursor or parameter', async () => {
    for (const [query, detail] of [
      [
        'status=paid',
        /^Invalid querystring: status: Not a valid choice\. Choose one of: requires_action, processing, succeeded, failed, canceled\.$/,
      ],
      ['user_id=0', /^Invalid querystring: user_id: Ensure this value is greater than or equal to 1\.$/],
      ['limit=101', /^Invalid querystring: limit: Ensure this value is less than or equal to 100\.$/],
      [
        'starting_after=pay_nope',
        /^Invalid querystring: starting_after: No payment pay_nope\. Pass the payment_id of the last payment of the page you have\.$/,
      ],
      ['method=card', /^Invalid querystring: non_field_errors: Unknown field "method"\.$/],
    ] as const) {
      assertError(await list(`?${query}`), 400, 'invalid_request', detail);
    }
  });

  it('another integrator’s payments are neither listed nor a cursor', async () => {
    const theirs = await cardPayment(t, (await newTenant(t, otherApi)).client);
    assert.deepEqual(ids(await list('', otherApi)), [theirs.payment_id]);
    assert.ok(!ids(await list('?limit=100')).includes(theirs.payment_id));
    assertError(
      await list(`?starting_after=${theirs.payment_id}`),
      400,
      'invalid_request',
      new RegExp(`^Invalid querystring: starting_after: No payment ${theirs.payment_id}\\.`),
    );
  });

  it('401 with a user session token', async () => {
    const answer = await send(t, {
      method: 'GET',
      url: '/api/third-party/payments/',
      headers: { authorization: `Bearer ${ann.client.token}` },
    });
    assertError(answer, 401, 'unauthorized', /^This is a user session token/);
  });
});
