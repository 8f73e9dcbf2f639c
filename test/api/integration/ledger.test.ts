/**
 * GET /api/third-party/ledger/: a tenancy's rent due, payments (their rent part), refunds, the running balance,
 * arrears, days overdue and the next due date, through the Integration API with real payments and refunds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import type { TestApp } from '../../support/helpers.ts';
import { cardToken, clientOf, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('rent ledger', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  const tenancy = tenancyBody({
    payment_reference: 'LEDGER-1',
    start_rent_date: '2026-01-01',
    rent_due_day: 1,
  });
  const user = userBody({ user_id: 501, email: 'ledger@example.com', tenant: [tenancy] });

  const ledger = (query: string, who: Api = api) =>
    send(t, {
      method: 'GET',
      url: `/api/third-party/ledger/?${query}`,
      headers: { authorization: `Token ${who.serverToken}` },
    });

  before(async () => {
    ({ t, api, otherApi } = await startPaymentApp());
    await api.onboardOk(user);
  });
  after(() => t?.close());

  it('before any payment: every due date so far in arrears, counted from the oldest', async () => {
    const answer = await ledger('payment_reference=LEDGER-1');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      payment_reference: 'LEDGER-1',
      currency: 'GBP',
      as_of: '2026-03-01',
      entries: [
        { date: '2026-01-01', type: 'rent_due', amount: '1200.00', balance: '1200.00' },
        { date: '2026-02-01', type: 'rent_due', amount: '1200.00', balance: '2400.00' },
        { date: '2026-03-01', type: 'rent_due', amount: '1200.00', balance: '3600.00' },
      ],
      arrears: '3600.00',
      next_due: { date: '2026-04-01', amount: '1200.00' },
      days_overdue: 59,
    });
    const session = await api.loginOk('ledger@example.com');
    const page = await api.clientSession(session.token);
    const { arrears, days_overdue, next_due, unpaid, paid_ahead } = page.body.tenancy.ledger;
    assert.deepEqual(
      { arrears, days_overdue, next_due },
      { arrears: '3600.00', days_overdue: 59, next_due: { date: '2026-04-01', amount: '1200.00' } },
      'the Client API session (what the page reads) has the same summary',
    );
    assert.deepEqual(
      unpaid.slice(0, 4).map((due: { date: string; amount: string }) => [due.date, due.amount]),
      [
        ['2026-01-01', '1200.00'],
        ['2026-02-01', '1200.00'],
        ['2026-03-01', '1200.00'],
        ['2026-04-01', '1200.00'],
      ],
      'and each due date unpaid, oldest first',
    );
    assert.equal(paid_ahead, null);
  });

  it('a payment counts its rent part (not the fee) on the day it was made; a refund gives rent back', async () => {
    const session = await api.loginOk('ledger@example.com');
    const client = clientOf(t, session.token);
    const paid = await client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.amount, '1217.40', 'the tenant paid the fee too');
    const paymentId = paid.body.payment_id;

    let answer = await ledger('payment_reference=LEDGER-1');
    assert.deepEqual(answer.body.entries.at(-1), {
      date: '2026-03-01',
      type: 'payment',
      amount: '1200.00',
      payment_id: paymentId,
      balance: '2400.00',
    });
    assert.equal(answer.body.arrears, '2400.00');
    assert.equal(answer.body.days_overdue, 28, 'January is paid; February is the oldest unpaid');

    t.clock.advance(2 * 86_400_000);
    const refund = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${paymentId}/refunds/`,
      headers: { authorization: `Token ${api.serverToken}`, 'idempotency-key': 'ledger-refund-1' },
      payload: { amount: '200.00' },
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    answer = await ledger('payment_reference=LEDGER-1');
    assert.equal(answer.body.as_of, '2026-03-03');
    assert.deepEqual(answer.body.entries.at(-1), {
      date: '2026-03-03',
      type: 'refund',
      amount: '200.00',
      payment_id: paymentId,
      balance: '2600.00',
    });
    assert.equal(answer.body.days_overdue, 61, 'January is part-paid again');

    const before = await ledger('payment_reference=LEDGER-1&as_of=2026-02-15');
    assert.deepEqual(
      before.body.entries.map((e: { type: string }) => e.type),
      ['rent_due', 'rent_due'],
      'as_of leaves out what came after it',
    );
    assert.equal(before.body.arrears, '2400.00');
    assert.equal(before.body.days_overdue, 45);
    assert.deepEqual(before.body.next_due, { date: '2026-03-01', amount: '1200.00' });
  });

  it('the Client API session nets credit from paying ahead against the next due date', async () => {
    await api.onboardOk(
      userBody({
        user_id: 502,
        email: 'ahead@example.com',
        tenant: [tenancyBody({ payment_reference: 'LEDGER-AHEAD', start_rent_date: '2026-03-01' })],
      }),
    );
    // What is owed and what is next; the clock has moved on since the rent fell due on 1 March.
    const summary = async () => {
      const session = await api.loginOk('ahead@example.com');
      const { arrears, next_due } = (await api.clientSession(session.token)).body.tenancy.ledger;
      return { arrears, next_due };
    };
    const pay = async (pureAmount: string) => {
      const session = await api.loginOk('ahead@example.com');
      const paid = await clientOf(t, session.token).pay({
        pure_amount: pureAmount,
        card_token: await cardToken(t, PAN.visa),
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
    };
    assert.deepEqual(await summary(), {
      arrears: '1200.00',
      next_due: { date: '2026-04-01', amount: '1200.00' },
    });
    await pay('2000.00');
    assert.deepEqual(await summary(), {
      arrears: '0.00',
      next_due: { date: '2026-04-01', amount: '400.00' },
    });
    await pay('400.00');
    assert.deepEqual(await summary(), { arrears: '0.00', next_due: null });
  });

  it('a changed amount applies from the next due date on; earlier ones keep theirs', async () => {
    t.clock.advance(12 * 86_400_000);
    await api.onboardOk({ ...user, tenant: [{ ...tenancy, amount: '1300.00' }] });
    const answer = await ledger('payment_reference=LEDGER-1&as_of=2026-05-01');
    assert.deepEqual(
      answer.body.entries
        .filter((e: { type: string }) => e.type === 'rent_due')
        .map((e: { date: string; amount: string }) => [e.date, e.amount]),
      [
        ['2026-01-01', '1200.00'],
        ['2026-02-01', '1200.00'],
        ['2026-03-01', '1200.00'],
        ['2026-04-01', '1300.00'],
        ['2026-05-01', '1300.00'],
      ],
    );
    assert.deepEqual(answer.body.next_due, { date: '2026-06-01', amount: '1300.00' });
    const after = await ledger('payment_reference=LEDGER-1&as_of=2027-01-01');
    assert.equal(after.body.next_due, null, 'the tenancy ends on 2026-12-31');
  });

  it('bad input answers 400 with the field; another integrator’s or an unknown tenancy 404; no token 401', async () => {
    const missing = await ledger('');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error, 'invalid_request');
    assert.match(missing.body.detail, /payment_reference/);
    const badDate = await ledger('payment_reference=LEDGER-1&as_of=2026-02-30');
    assert.equal(badDate.status, 400);
    assert.equal(badDate.body.error, 'invalid_request');
    assert.match(badDate.body.detail, /as_of: .*YYYY-MM-DD/);
    const nul = await ledger('payment_reference=%00');
    assert.equal(nul.status, 400, JSON.stringify(nul.body));
    assert.match(nul.body.detail, /payment_reference/);
    const unknown = await ledger('payment_reference=NOPE');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'not_found');
    const others = await ledger('payment_reference=LEDGER-1', otherApi);
    assert.equal(others.status, 404);
    assert.deepEqual(others.body.error, unknown.body.error);
    const anonymous = await send(t, {
      method: 'GET',
      url: '/api/third-party/ledger/?payment_reference=LEDGER-1',
    });
    assert.equal(anonymous.status, 401);
  });
});
