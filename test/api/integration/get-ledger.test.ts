import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, type Api, assertError, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, clientOf, PAN, startPaymentApp } from '../../support/payment-client.ts';

/** A user whose one tenancy's rent (£1,200.00) falls due on the 1st from `start`. */
const onboardTenancy = (who: Api, userId: number, email: string, reference: string, start: string) =>
  who.onboardOk(
    userBody({
      user_id: userId,
      email,
      tenant: [tenancyBody({ payment_reference: reference, start_rent_date: start, rent_due_day: 1 })],
    }),
  );

const rentDue = (date: string, balance: string) => ({ date, type: 'rent_due', amount: '1200.00', balance });

describe('GET /api/third-party/ledger/ (getLedger)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    // The clock starts at 2026-03-01T09:00Z; the card fee is 1.45 %.
    ({ t, api, otherApi } = await startPaymentApp());
    await onboardTenancy(api, 1, 'ledger@example.com', 'LEDGER-1', '2026-01-01');
  });
  after(() => t.close());

  const ledger = (query: string, who: Api = api): Promise<Answer> =>
    send(t, {
      method: 'GET',
      url: `/api/third-party/ledger/?${query}`,
      headers: tokenHeader(who.serverToken),
    });

  it('200: every due date up to today, the balance, arrears, days overdue and the next due date', async () => {
    const answer = await ledger('payment_reference=LEDGER-1');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      payment_reference: 'LEDGER-1',
      currency: 'GBP',
      as_of: '2026-03-01',
      entries: [
        rentDue('2026-01-01', '1200.00'),
        rentDue('2026-02-01', '2400.00'),
        rentDue('2026-03-01', '3600.00'),
      ],
      arrears: '3600.00',
      next_due: { date: '2026-04-01', amount: '1200.00' },
      days_overdue: 59,
    });
  });

  it('as_of counts to that day only', async () => {
    const answer = await ledger('payment_reference=LEDGER-1&as_of=2026-02-15');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [
        answer.body.as_of,
        answer.body.entries,
        answer.body.arrears,
        answer.body.next_due,
        answer.body.days_overdue,
      ],
      [
        '2026-02-15',
        [rentDue('2026-01-01', '1200.00'), rentDue('2026-02-01', '2400.00')],
        '2400.00',
        { date: '2026-03-01', amount: '1200.00' },
        45,
      ],
    );
  });

  it('a payment subtracts its rent (not the fee) and pays the oldest due date; a refund adds rent back', async () => {
    const { token } = await api.loginOk('ledger@example.com');
    const paid = await clientOf(t, token).pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.body.amount, '1217.40', JSON.stringify(paid.body));
    const payment = {
      date: '2026-03-01',
      type: 'payment',
      amount: '1200.00',
      payment_id: paid.body.payment_id,
    };
    const afterPayment = (await ledger('payment_reference=LEDGER-1')).body;
    assert.deepEqual(afterPayment.entries.slice(3), [{ ...payment, balance: '2400.00' }]);
    assert.deepEqual([afterPayment.arrears, afterPayment.days_overdue], ['2400.00', 28]);

    const refund = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${paid.body.payment_id}/refunds/`,
      headers: tokenHeader(api.serverToken),
      payload: { amount: '200.00' },
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const afterRefund = (await ledger('payment_reference=LEDGER-1')).body;
    assert.deepEqual(afterRefund.entries.slice(4), [
      {
        date: '2026-03-01',
        type: 'refund',
        amount: '200.00',
        payment_id: paid.body.payment_id,
        balance: '2600.00',
      },
    ]);
    assert.deepEqual([afterRefund.arrears, afterRefund.days_overdue], ['2600.00', 59]);
  });

  it('400 naming the parameter for a missing payment_reference or an as_of that is not a real date', async () => {
    assertError(
      await ledger('as_of=2026-03-01'),
      400,
      'invalid_request',
      /^Invalid querystring: payment_reference: This field is required\.$/,
    );
    assertError(
      await ledger('payment_reference=LEDGER-1&as_of=2026-02-30'),
      400,
      'invalid_request',
      /^Invalid querystring: as_of: Date has wrong format or is not a real date\. Use YYYY-MM-DD\.$/,
    );
  });

  it('404 for a reference never onboarded, and for another integrator’s tenancy alike', async () => {
    const detail = (reference: string) =>
      new RegExp(
        `^No tenancy with payment_reference "${reference}"\\. Use a payment_reference you onboarded\\.$`,
      );
    assertError(await ledger('payment_reference=NOPE'), 404, 'not_found', detail('NOPE'));
    assertError(await ledger('payment_reference=LEDGER-1', otherApi), 404, 'not_found', detail('LEDGER-1'));
  });

  it('401 with a token that is not a server token', async () => {
    const answer = await send(t, {
      method: 'GET',
      url: '/api/third-party/ledger/?payment_reference=LEDGER-1',
      headers: { authorization: 'Token sk_test_123' },
    });
    assertError(
      answer,
      401,
      'unauthorized',
      /^Invalid token\. Server tokens for this environment start with "rp_sandbox_"\.$/,
    );
  });

  it('ledgers asked together answer each for its own integrator, tenancy and day', async () => {
    await onboardTenancy(api, 2, 'ledger-2@example.com', 'LEDGER-2', '2026-02-01');
    await onboardTenancy(otherApi, 1, 'other-ledger@example.com', 'LEDGER-1', '2026-03-01');
    // Sent in one turn of the event loop, so they share one read.
    const answers = await Promise.all([
      ledger('payment_reference=LEDGER-1'),
      ledger('payment_reference=LEDGER-1&as_of=2026-01-15'),
      ledger('payment_reference=LEDGER-2'),
      ledger('payment_reference=NOPE'),
      ledger('payment_reference=LEDGER-1', otherApi),
      ledger('payment_reference=LEDGER-2', otherApi),
      ledger('payment_reference=LEDGER-1'),
    ]);
    const summary = answers.map((answer) =>
      answer.status === 200
        ? [answer.body.payment_reference, answer.body.as_of, answer.body.entries.length, answer.body.arrears]
        : [answer.status, answer.body.error],
    );
    assert.deepEqual(summary, [
      ['LEDGER-1', '2026-03-01', 5, '2600.00'],
      ['LEDGER-1', '2026-01-15', 1, '1200.00'],
      ['LEDGER-2', '2026-03-01', 2, '2400.00'],
      [404, 'not_found'],
      ['LEDGER-1', '2026-03-01', 1, '1200.00'],
      [404, 'not_found'],
      ['LEDGER-1', '2026-03-01', 5, '2600.00'],
    ]);
    assert.deepEqual(answers[6]!.body, answers[0]!.body);
  });
});
