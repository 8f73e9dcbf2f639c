import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, type Api, assertError, operatorRequest, send } from '../../support/api-client.ts';
import { type TestApp, tokenHeader } from '../../support/helpers.ts';
import { paidOutRun } from '../../support/operation-tests.ts';
import { newTenant, startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/third-party/payouts/ (listPayouts)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    ({ t, api, otherApi } = await startPaymentApp());
  });
  after(() => t.close());

  const payouts = (reference: string, who: Api = api): Promise<Answer> =>
    send(t, {
      method: 'GET',
      url: `/api/third-party/payouts/?payment_reference=${encodeURIComponent(reference)}`,
      headers: tokenHeader(who.serverToken),
    });

  it('200 {data: []} for a tenancy with no payout yet', async () => {
    const tenant = await newTenant(t, api);
    const answer = await payouts(`PAY-${tenant.userId}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { data: [] });
  });

  it('200: every payout of the tenancy, newest first, created, canceled or paid as its run', async () => {
    const { tenant, run, item } = await paidOutRun(t, api);
    const reference = `PAY-${tenant.userId}`;
    assert.deepEqual(item, {
      payout_id: item.payout_id,
      payout_run_id: run.payout_run_id,
      status: 'created',
      payment_reference: reference,
      sort_code: '123456',
      account_number: '12345678',
      account_name: 'Landlord Ltd',
      amount: '1200.00',
      payment_ids: [tenant.payment.payment_id],
      paid_at: null,
    });
    assert.match(item.payout_id, /^po_[A-Za-z0-9]+$/);
    assert.deepEqual((await payouts(reference)).body, { data: [item] });

    t.clock.advance(60_000);
    assert.equal((await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/cancel`)).status, 200);
    t.clock.advance(60_000);
    const next = await operatorRequest(t, 'POST', '/payouts/runs', {});
    assert.equal(next.status, 201, JSON.stringify(next.body));
    const [again] = next.body.items;
    assert.equal(
      (await operatorRequest(t, 'POST', `/payouts/runs/${next.body.payout_run_id}/confirm`)).status,
      200,
    );
    const answer = await payouts(reference);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.data, [
      { ...again, status: 'paid', paid_at: t.clock.now().toISOString() },
      { ...item, status: 'canceled' },
    ]);
  });

  it('400 without a payment_reference, or a blank one', async () => {
    for (const [query, message] of [
      ['', 'This field is required.'],
      ['?payment_reference=', 'This field may not be blank.'],
    ]) {
      const answer = await send(t, {
        method: 'GET',
        url: `/api/third-party/payouts/${query}`,
        headers: tokenHeader(api.serverToken),
      });
      assertError(
        answer,
        400,
        'invalid_request',
        new RegExp(`^Invalid querystring: payment_reference: ${message}$`),
      );
    }
  });

  it('404 for a reference never onboarded, and for another integrator’s tenancy alike', async () => {
    const { tenant } = await paidOutRun(t, api);
    const detail = (reference: string) =>
      new RegExp(
        `^No tenancy with payment_reference "${reference}"\\. Use a payment_reference you onboarded\\.$`,
      );
    assertError(await payouts('NOPE'), 404, 'not_found', detail('NOPE'));
    const reference = `PAY-${tenant.userId}`;
    assertError(await payouts(reference, otherApi), 404, 'not_found', detail(reference));
  });

  it('401 with a token of the production environment', async () => {
    const answer = await send(t, {
      method: 'GET',
      url: '/api/third-party/payouts/?payment_reference=NOPE',
      headers: { authorization: `Token rp_live_${api.serverToken.slice('rp_sandbox_'.length)}` },
    });
    assertError(answer, 401, 'unauthorized', /^This token belongs to the production environment;/);
  });
});
