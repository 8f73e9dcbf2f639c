import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { moneyOf } from '../../../src/shared/display.ts';
import { type Api, assertError, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, clientOf, PAN, startPaymentApp } from '../../support/payment-client.ts';
import { assertInOrder, fetchPdf } from '../../support/pdf-text.ts';

const STATEMENTS = '/api/third-party/statements/';

describe('GET /api/third-party/statements/ (getStatement)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  const payments: string[] = [];

  const json = (query: string, who: Api = api) =>
    send(t, {
      method: 'GET',
      url: `${STATEMENTS}?${query}`,
      headers: { ...tokenHeader(who.serverToken), accept: 'application/json' },
    });
  const pdf = (query: string) => fetchPdf(t, `${STATEMENTS}?${query}`, tokenHeader(api.serverToken));

  before(async () => {
    // Rent of £1,200.00 due on the 1st from January 2026; the tenant pays on the 1st each month, but misses May.
    ({ t, api, otherApi } = await startPaymentApp());
    t.clock.set('2026-01-01T09:00:00.000Z');
    await api.onboardOk(
      userBody({
        user_id: 1,
        email: 'statement@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'STMT-1',
            start_rent_date: '2026-01-01',
            end_rent_date: '2027-12-31',
          }),
        ],
      }),
    );
    for (let month = 1; month <= 12; month++) {
      t.clock.set(`2026-${String(month).padStart(2, '0')}-01T09:00:00.000Z`);
      if (month === 5) continue;
      const { token } = await api.loginOk('statement@example.com');
      const paid = await clientOf(t, token).pay({ card_token: await cardToken(t, PAN.visa) });
      assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
      payments.push(paid.body.payment_id);
    }
    // A refund of £100.00 of the June payment, on 10 June.
    t.clock.set('2026-06-10T09:00:00.000Z');
    const refund = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${payments[4]}/refunds/`,
      headers: tokenHeader(api.serverToken),
      payload: { amount: '100.00' },
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    t.clock.set('2026-12-20T12:00:00.000Z');
  });
  after(() => t.close());

  it('200 JSON: a year with a missed month shows every due date, the refund, the totals and the arrears', async () => {
    const answer = await json('payment_reference=STMT-1');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const statement = answer.body;
    assert.deepEqual([statement.from, statement.to], ['2025-12-21', '2026-12-20']);
    assert.equal(statement.due_dates.length, 12);
    assert.equal(statement.entries.filter((entry: { type: string }) => entry.type === 'payment').length, 11);
    assert.deepEqual(statement.totals, { rent_due: '14400.00', paid: '13200.00', refunded: '100.00' });
    assert.deepEqual(
      [statement.opening_balance, statement.closing_balance, statement.arrears, statement.days_overdue],
      ['0.00', '1300.00', '1300.00', 49],
    );
    // Payments pay the oldest due date first: from May the tenant is a month (less the refund) behind, so
    // November is part paid, and overdue for 49 days.
    assert.deepEqual(statement.due_dates[10], {
      date: '2026-11-01',
      installment_number: null,
      rent: '1200.00',
      paid: '1100.00',
      paid_in_full_on: null,
    });
    assert.deepEqual(statement.due_dates[11], {
      date: '2026-12-01',
      installment_number: null,
      rent: '1200.00',
      paid: '0.00',
      paid_in_full_on: null,
    });
    assert.deepEqual(statement.entries.at(-1), {
      date: '2026-12-01',
      type: 'payment',
      amount: '1200.00',
      payment_id: payments[10],
      balance: '1300.00',
    });
  });

  it('the PDF states the same figures in the same order, and the same bytes twice', async () => {
    const statement = (await json('payment_reference=STMT-1')).body;
    const document = await pdf('payment_reference=STMT-1');
    assert.ok(document.pages >= 1);
    assertInOrder(document.text, [
      'Rent statement',
      '21 December 2025 to 20 December 2026',
      'Tenant Ada Lovelace',
      'Paid to (landlord) Landlord Ltd',
      'Payment reference STMT-1',
      `Opening balance, 21 Dec 2025 ${moneyOf(statement.opening_balance)}`,
      `Rent due in the period ${moneyOf(statement.totals.rent_due)}`,
      `Paid in the period ${moneyOf(statement.totals.paid)}`,
      `Refunded in the period ${moneyOf(statement.totals.refunded)}`,
      `Closing balance, 20 Dec 2026 ${moneyOf(statement.closing_balance)}`,
      `Arrears at the end ${moneyOf(statement.arrears)}`,
      `Days overdue ${statement.days_overdue}`,
      'Due dates',
      ...statement.due_dates.map(
        (due: { rent: string; paid: string }) => `${moneyOf(due.rent)} ${moneyOf(due.paid)}`,
      ),
      'Entries',
      ...statement.entries.map(
        (entry: { amount: string; balance: string }) => `${moneyOf(entry.amount)} ${moneyOf(entry.balance)}`,
      ),
      "These figures come from rentpay's records of this tenancy (payment reference STMT-1)",
    ]);
    assertInOrder(document.text, ['May 2026 rent, due 1 May 2026 £1,200.00 £1,200.00 1 Jul 2026']);
    assertInOrder(document.text, [`Refund of ${payments[4]}`, '+£100.00']);
    const again = await pdf('payment_reference=STMT-1');
    assert.ok(again.bytes.equals(document.bytes), 'the same bytes twice');
  });

  it('from and to choose the period: the opening balance is the one before it', async () => {
    const answer = await json('payment_reference=STMT-1&from=2026-06-01&to=2026-06-30');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [
        answer.body.opening_balance,
        answer.body.closing_balance,
        answer.body.totals,
        answer.body.days_overdue,
      ],
      ['1200.00', '1300.00', { rent_due: '1200.00', paid: '1200.00', refunded: '100.00' }, 60],
    );
    assert.equal(
      (
        await send(t, {
          method: 'GET',
          url: `${STATEMENTS}?payment_reference=STMT-1`,
          headers: tokenHeader(api.serverToken),
        })
      ).headers.vary,
      'accept',
    );
  });

  it('400 for a period that ends after today, starts after it ends, or is longer than 6 years', async () => {
    assertError(
      await json('payment_reference=STMT-1&to=2026-12-21'),
      400,
      'invalid_request',
      /^Invalid querystring: to: 2026-12-21 is after today \(2026-12-20\)\.$/,
    );
    assertError(
      await json('payment_reference=STMT-1&from=2026-07-01&to=2026-06-30'),
      400,
      'invalid_request',
      /^Invalid querystring: from: /,
    );
    assertError(
      await json('payment_reference=STMT-1&from=2019-01-01'),
      400,
      'invalid_request',
      /at most 6 years/,
    );
    assertError(
      await json('from=2026-01-01'),
      400,
      'invalid_request',
      /^Invalid querystring: payment_reference: /,
    );
  });

  it('404 for an unknown reference and another integrator’s tenancy alike; 401 without a server token', async () => {
    assertError(
      await json('payment_reference=NOPE'),
      404,
      'not_found',
      /^No tenancy with payment_reference "NOPE"\./,
    );
    assertError(
      await json('payment_reference=STMT-1', otherApi),
      404,
      'not_found',
      /^No tenancy with payment_reference "STMT-1"\./,
    );
    assertError(
      await send(t, { method: 'GET', url: `${STATEMENTS}?payment_reference=STMT-1` }),
      401,
      'unauthorized',
    );
  });
});
