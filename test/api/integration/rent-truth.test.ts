/**
 * What the Client API tells the page about the tenant's money, over HTTP with the test clock: which due dates are
 * unpaid (payments pay the oldest first), rent paid ahead, what the session's payment paid; and recurring rent set up
 * after paying never charges a due date already paid.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../../support/api-client.ts';
import { runJobs, type TestApp } from '../../support/helpers.ts';
import { type Client, cardToken, clientOf, PAN, startPaymentApp } from '../../support/payment-client.ts';
import { createSchedule, scheduleTenant } from '../../support/schedule-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any;

describe('the tenant’s rent position on the Client API', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    ({ t, api } = await startPaymentApp());
    t.clock.set('2026-11-27T10:00:00.000Z');
  });
  after(() => t.close());

  /** A tenant of a tenancy from 1 August (rent 1200.00 on the 1st), with a saved card, and a fresh session. */
  async function tenantSince(tenancy: Record<string, unknown> = {}) {
    const tenant = await scheduleTenant(
      t,
      api,
      { start_rent_date: '2026-08-01', end_rent_date: '2027-07-31', ...tenancy },
      PAN.visa,
      () => runJobs(t),
    );
    return tenant;
  }
  const newSession = async (email: string): Promise<Client> => clientOf(t, (await api.loginOk(email)).token);
  const pay = async (client: Client, pureAmount: string) => {
    const paid = await client.pay({ pure_amount: pureAmount, card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'succeeded');
    return paid.body;
  };
  const session = async (client: Client): Promise<Json> => {
    const answer = await client.call('GET', '/session');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  it('in arrears since August: every overdue due date, oldest first, then the ones ahead', async () => {
    const tenant = await tenantSince();
    const { ledger } = (await session(tenant.client)).tenancy;
    assert.equal(ledger.as_of, '2026-11-27');
    assert.equal(ledger.arrears, '4800.00');
    assert.deepEqual(
      ledger.unpaid.slice(0, 5).map((due: Json) => [due.date, due.amount, due.rent]),
      [
        ['2026-08-01', '1200.00', '1200.00'],
        ['2026-09-01', '1200.00', '1200.00'],
        ['2026-10-01', '1200.00', '1200.00'],
        ['2026-11-01', '1200.00', '1200.00'],
        ['2026-12-01', '1200.00', '1200.00'],
      ],
    );
    assert.equal(ledger.unpaid.length, 12, '4 overdue and the 8 left until the tenancy ends');
    assert.equal(ledger.paid_ahead, null);
    assert.deepEqual((await session(tenant.client)).paid_applied_to, []);
  });

  it('£1,200 paid while in arrears pays August, not December: the paid session says so', async () => {
    const tenant = await tenantSince();
    await pay(tenant.client, '1200.00');
    const paid = await session(tenant.client);
    assert.deepEqual(paid.paid_applied_to, [{ due_date: '2026-08-01', amount: '1200.00', rent: '1200.00' }]);
    assert.equal(paid.tenancy.ledger.arrears, '3600.00');
    assert.equal(paid.tenancy.ledger.unpaid[0].date, '2026-09-01');
  });

  it('a payment spread over due dates, part paying the next: each part listed', async () => {
    const tenant = await tenantSince();
    await pay(tenant.client, '2500.00');
    const paid = await session(tenant.client);
    assert.deepEqual(paid.paid_applied_to, [
      { due_date: '2026-08-01', amount: '1200.00', rent: '1200.00' },
      { due_date: '2026-09-01', amount: '1200.00', rent: '1200.00' },
      { due_date: '2026-10-01', amount: '100.00', rent: '1200.00' },
    ]);
    assert.deepEqual(paid.tenancy.ledger.unpaid[0], {
      date: '2026-10-01',
      amount: '1100.00',
      rent: '1200.00',
      installment_number: null,
    });
  });

  it('paid ahead: December paid today is shown as paid, with the day, and is not unpaid', async () => {
    const tenant = await tenantSince();
    await pay(tenant.client, '6000.00');
    const fresh = await session(await newSession(tenant.email));
    assert.deepEqual(fresh.tenancy.ledger.paid_ahead, {
      date: '2026-12-01',
      rent: '1200.00',
      paid_on: '2026-11-27',
    });
    assert.equal(fresh.tenancy.ledger.arrears, '0.00');
    assert.equal(fresh.tenancy.ledger.unpaid[0].date, '2027-01-01');
    assert.equal(fresh.tenancy.ledger.next_due, null, 'December, the next due date, is paid');
  });

  it('recurring rent set up after paying November (due on the 28th) starts on 28 December', async () => {
    const tenant = await tenantSince({ start_rent_date: '2026-11-28', rent_due_day: 28 });
    await pay(tenant.client, '1200.00');
    const client = await newSession(tenant.email);
    const preview = await client.call('POST', '/schedules/preview', { saved_card_id: tenant.cardId });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.upcoming[0].due_date, '2026-12-28');
    assert.equal(preview.body.paid_through, '2026-11-28');
    assert.match(preview.body.authorization.text, /from 28 December 2026/);
    const created = await createSchedule({ client, cardId: tenant.cardId });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.next_due_date, '2026-12-28');
  });

  it('without paying ahead the first charge is the next due date, and paid_through is null', async () => {
    const tenant = await tenantSince({ start_rent_date: '2026-11-28', rent_due_day: 28 });
    const preview = await tenant.client.call('POST', '/schedules/preview', { saved_card_id: tenant.cardId });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.upcoming[0].due_date, '2026-11-28');
    assert.equal(preview.body.paid_through, null);
  });

  it('an installment plan with its first installment paid starts with the second', async () => {
    const tenant = await tenantSince({
      start_rent_date: '2026-11-01',
      end_rent_date: '2027-10-31',
      installment_payment: {
        total_amount: 3000,
        installments: [
          { installment_number: 1, due_date: '2026-12-15', amount: 1000 },
          { installment_number: 2, due_date: '2027-03-15', amount: 1000 },
          { installment_number: 3, due_date: '2027-06-15', amount: 1000 },
        ],
      },
    });
    await pay(tenant.client, '1000.00');
    const client = await newSession(tenant.email);
    const preview = await client.call('POST', '/schedules/preview', { saved_card_id: tenant.cardId });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.deepEqual(
      preview.body.upcoming.map((charge: Json) => charge.due_date),
      ['2027-03-15', '2027-06-15'],
    );
    assert.equal(preview.body.payments, 2);
    assert.equal(preview.body.paid_through, '2026-12-15');
  });

  it('rent paid to the end of the tenancy: nothing to set up (409, and it says why)', async () => {
    const tenant = await tenantSince({ start_rent_date: '2026-11-01', end_rent_date: '2027-01-31' });
    await pay(tenant.client, '3600.00');
    const client = await newSession(tenant.email);
    const refused = await createSchedule({ client, cardId: tenant.cardId });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.detail, /paid to its end \(2027-01-31\)/);
  });

  it('a schedule resumed after paying ahead while it was paused skips the due dates paid meanwhile', async () => {
    const tenant = await tenantSince({ start_rent_date: '2026-11-28', rent_due_day: 28 });
    const created = await createSchedule(tenant);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.schedule_id;
    assert.equal((await tenant.client.call('POST', `/schedules/${id}/pause`)).status, 200);
    await pay(tenant.client, '2400.00'); // 28 November and 28 December
    const resumed = await tenant.client.call('POST', `/schedules/${id}/resume`);
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.next_due_date, '2027-01-28');
  });
});
