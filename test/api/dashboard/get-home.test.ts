import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PayoutService } from '../../../src/payouts/service.ts';
import { FakeClock } from '../../../src/platform/clock/clock.ts';
import { assertError, operatorRequest, send } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  anotherPlatform,
  operatorStaff,
  type PaymentsDashboard,
  signInEveryoneAgain,
  startPaymentsDashboard,
} from '../../support/dashboard-payments.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs, tokenHeader } from '../../support/helpers.ts';
import { clientOf } from '../../support/payment-client.ts';
import { Receiver } from '../../support/webhook-receiver.ts';

/**
 * The platform, as of 23:30 UTC on 15 June 2026 (00:30 on 16 June in London, so "today" is 16 June while the
 * ledger's day is still 15 June). Every tenancy owes £1,000.00 a month in 2026 on its due day; `paid` are the months
 * (1-6) paid on the due day at 10:00 UTC unless `paidAt` says otherwise.
 */
const NOW = '2026-06-15T23:30:00.000Z';
const TENANCIES: Record<string, { dueDay: number; paid: number[]; active?: boolean; account?: string }> = {
  A: { dueDay: 1, paid: [1, 2, 3, 4, 5] }, // and June's, today (00:10 in London): no arrears
  B: { dueDay: 10, paid: [1, 2, 3, 4, 5] }, // June 10 unpaid: 5 days overdue
  C: { dueDay: 20, paid: [1, 2, 3, 4] }, // May 20 unpaid: 26 days
  D: { dueDay: 1, paid: [1, 2, 3] }, // April 1 unpaid: 75 days
  E: { dueDay: 1, paid: [1, 2, 3, 4], account: '12' }, // May 1 unpaid: 45 days; its bank account cannot be paid
  F: { dueDay: 1, paid: [1, 2, 3, 4, 5, 6] }, // June's refunded £300.00 on June 5: £300.00 from June 1, 14 days
  G: { dueDay: 1, paid: [], active: false }, // inactive: neither due nor in arrears here
  H: { dueDay: 15, paid: [1, 2, 3, 4, 5] }, // and June's at 23:50 in London on the 15th
  J: { dueDay: 1, paid: [1, 2, 3, 4, 5, 6] }, // June's lost to a dispute on June 8: £1,000.00 from June 1
};

describe('GET /api/dashboard/home/ (getHome)', () => {
  let d: PaymentsDashboard;
  let receiver: Receiver;
  let aPaidToday: string;
  let bFailed: string;
  before(async () => {
    receiver = await Receiver.start();
    receiver.respond = () => ({ status: 500, body: 'down' });
    d = await startPaymentsDashboard({
      clock: new FakeClock('2026-06-14T10:00:00.000Z'),
      config: { allowPrivateWebhookHosts: true },
    });
    await d.admin.request('PUT', '/webhook-endpoint/', { url: `http://127.0.0.1:${receiver.port}/hooks` });
    // A delivery that fails every attempt of its round (about 28 hours)…
    const gaveUp = (await d.admin.post('/webhook-endpoint/ping/')).body.event_id;
    for (let attempts = 0; ; attempts++) {
      assert.ok(attempts < 10, 'the round ends');
      await runJobs(d.t);
      const [delivery] = await d.t.db.query<{ status: string; next_attempt_at: Date | null }>(
        'SELECT status, next_attempt_at FROM webhook_deliveries WHERE event_id = $1',
        [gaveUp],
      );
      if (delivery!.status === 'failed') break;
      d.t.clock.set(delivery!.next_attempt_at!);
    }
    // …one that failed once and waits for its retry since 20:00, and one not tried yet.
    // (Signing in moves the fake clock on 30 seconds, so that a code is used once.)
    d.t.clock.set('2026-06-15T19:59:30.000Z');
    d.admin = await d.admin.signInAgain();
    assert.equal((await d.admin.post('/webhook-endpoint/ping/')).status, 202);
    await runJobs(d.t);
    d.t.clock.set('2026-06-15T20:59:30.000Z');
    d.admin = await d.admin.signInAgain();
    assert.equal((await d.admin.post('/webhook-endpoint/ping/')).status, 202);

    for (const [name, tenancy] of Object.entries(TENANCIES)) {
      await d.api.onboardOk(
        userBody({
          user_id: name.charCodeAt(0),
          email: `home-${name.toLowerCase()}@example.com`,
          tenant: [
            tenancyBody({
              payment_reference: `HOME-${name}`,
              amount: '1000.00',
              rent_due_day: tenancy.dueDay,
              is_active: tenancy.active ?? true,
              ...(tenancy.account ? { recipient_bank_account_number: tenancy.account } : {}),
            }),
          ],
        }),
      );
      for (const month of tenancy.paid) {
        const day = String(tenancy.dueDay).padStart(2, '0');
        await seedPayment(name, `2026-0${month}-${day}T10:00:00.000Z`, { status: 'succeeded' });
      }
    }
    aPaidToday = await seedPayment('A', '2026-06-15T23:10:00.000Z', { status: 'succeeded' });
    await seedPayment('H', '2026-06-15T22:50:00.000Z', { status: 'succeeded' });
    bFailed = await seedPayment('B', '2026-06-10T12:00:00.000Z', { status: 'failed' });
    await seedPayment('B', '2026-05-10T12:00:00.000Z', { status: 'failed' });
    const fJune = await seedPayment('F', '2026-06-02T10:00:00.000Z', {
      status: 'succeeded',
      refundedPence: 30_000,
    });
    await d.t.db.query(
      `INSERT INTO refunds (id, payment_id, amount_pence, status, created_at, updated_at)
       VALUES ('ref_home_f', $1, 30000, 'succeeded', '2026-06-05T10:00:00Z', '2026-06-05T10:00:00Z')`,
      [fJune],
    );
    await d.t.db.query(
      `UPDATE payments SET dispute_status = 'lost', dispute_lost_at = '2026-06-08T10:00:00Z',
              dispute_amount_pence = 100000
        WHERE tenancy_id = (SELECT id FROM tenancies WHERE payment_reference = 'HOME-J')
          AND created_at = '2026-06-01T10:00:00Z'`,
    );
    // F's June payment was made on the 2nd, not the 1st: move the seeded one of the 1st away.
    await d.t.db.query(
      `DELETE FROM payments WHERE tenancy_id = (SELECT id FROM tenancies WHERE payment_reference = 'HOME-F')
          AND created_at = '2026-06-01T10:00:00Z'`,
    );

    d.t.clock.set(new Date(new Date(NOW).getTime() - 4 * 30_000));
    await signInEveryoneAgain(d);
    assert.equal(d.t.clock.now().toISOString(), NOW);
    // A tenant of A pays with Alipay and has not approved it yet.
    const waiting = await clientOf(d.t, (await d.api.loginOk('home-a@example.com')).token).pay({
      method: 'alipay',
    });
    assert.equal(waiting.body.status, 'requires_action', JSON.stringify(waiting.body));
  });
  after(async () => {
    await d.t.close();
    await receiver.close();
  });

  /** A payment of tenancy HOME-`name` written straight into the tables (rent only, no fee); its id. */
  async function seedPayment(
    name: string,
    at: string,
    options: { status: 'succeeded' | 'failed'; refundedPence?: number },
  ): Promise<string> {
    const key = `${name}-${at}-${options.status}`;
    const [row] = await d.t.db.query<{ id: string }>(
      `WITH t AS (SELECT id, user_id FROM tenancies WHERE integrator_id = $1 AND payment_reference = $2),
       s AS (
         INSERT INTO sessions (id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at,
                               created_at)
         SELECT 'ses_home' || md5($3), $1, t.user_id, t.id, md5($3), $4, $4, $4 FROM t
         RETURNING id, user_id, tenancy_id)
       INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                             amount_pence, refunded_pence, method, card_brand, card_last4, card_exp_month,
                             card_exp_year, reference, idempotency_key, processor, processor_token,
                             processor_payment_id, failure_code, created_at, updated_at, funds_available_at)
       SELECT 'pay_home' || substr(md5($3), 1, 16), $1, s.id, s.user_id, s.tenancy_id, $5, 100000, 0, 100000, $6,
              'card', 'visa', '4242', 12, 2030, $2, 'k', 'sandbox', 'tok', 'ch_' || md5($3),
              CASE WHEN $5 = 'failed' THEN 'card_declined' END, $4, $4, CASE WHEN $5 = 'succeeded' THEN $4::timestamptz END
         FROM s
       RETURNING id`,
      [d.integrator.id, `HOME-${name}`, key, at, options.status, options.refundedPence ?? 0],
    );
    return row!.id;
  }

  const home = async (who = d.support) => {
    const answer = await who.get('/home/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  it('200: rent collected today and this month (UK days, less refunds and lost disputes) against rent due', async () => {
    const body = await home();
    assert.deepEqual([body.as_of, body.today, body.month], [NOW, '2026-06-16', '2026-06']);
    assert.deepEqual(body.collected_today, {
      amount: '1000.00',
      link: '/api/dashboard/payments/?status=succeeded&from=2026-06-16&to=2026-06-16',
    });
    // June: F's £1,000.00 less £300.00 refunded, H's on the 15th, A's today; J's was lost to its dispute.
    assert.deepEqual(body.collected_this_month, {
      amount: '2700.00',
      link: '/api/dashboard/payments/?status=succeeded&from=2026-06-01&to=2026-06-16',
    });
    assert.deepEqual(body.due_this_month, { amount: '8000.00', link: '/api/dashboard/tenants/' });
    const listed = await d.support.get(body.collected_today.link.replace('/api/dashboard', ''));
    assert.deepEqual(
      listed.body.data.map((p: { payment_id: string }) => p.payment_id),
      [aPaidToday],
    );
  });

  it('200: the last 30 UK days, oldest first, each with rent collected and due', async () => {
    const { series } = await home();
    assert.equal(series.length, 30);
    assert.deepEqual([series[0].date, series[29].date], ['2026-05-18', '2026-06-16']);
    const nonZero = series
      .filter((day: { collected: string; due: string }) => day.collected !== '0.00' || day.due !== '0.00')
      .map((day: { date: string; collected: string; due: string }) => [day.date, day.collected, day.due]);
    assert.deepEqual(nonZero, [
      ['2026-05-20', '0.00', '1000.00'],
      ['2026-06-01', '0.00', '5000.00'],
      ['2026-06-02', '700.00', '0.00'],
      ['2026-06-10', '0.00', '1000.00'],
      ['2026-06-15', '1000.00', '1000.00'],
      ['2026-06-16', '1000.00', '0.00'],
    ]);
    assert.equal(series[29].link, '/api/dashboard/payments/?status=succeeded&from=2026-06-16&to=2026-06-16');
  });

  it('200: arrears by days overdue, tenancy by tenancy the same as each ledger says', async () => {
    const { arrears } = await home();
    assert.deepEqual(arrears, {
      as_of: '2026-06-15',
      total: { tenancies: 6, amount: '8300.00' },
      buckets: [
        { label: '0-7', min_days: 0, max_days: 7, tenancies: 1, amount: '1000.00' },
        { label: '8-30', min_days: 8, max_days: 30, tenancies: 3, amount: '2300.00' },
        { label: '31-60', min_days: 31, max_days: 60, tenancies: 1, amount: '2000.00' },
        { label: 'over_60', min_days: 61, max_days: null, tenancies: 1, amount: '3000.00' },
      ],
      link: '/api/dashboard/tenants/',
    });
    const expected: Record<string, [string, number]> = {
      A: ['0.00', 0],
      B: ['1000.00', 5],
      C: ['1000.00', 26],
      D: ['3000.00', 75],
      E: ['2000.00', 45],
      F: ['300.00', 14],
      H: ['0.00', 0],
      J: ['1000.00', 14],
    };
    for (const [name, [amount, days]] of Object.entries(expected)) {
      const ledger = await send(d.t, {
        method: 'GET',
        url: `/api/third-party/ledger/?payment_reference=HOME-${name}&as_of=2026-06-15`,
        headers: tokenHeader(d.integrator.token),
      });
      assert.deepEqual([ledger.body.arrears, ledger.body.days_overdue], [amount, days], `HOME-${name}`);
    }
  });

  it('200: failed in the last 30 days and waiting for the tenant, each with the search that lists them', async () => {
    const body = await home();
    assert.deepEqual(body.failed_payments, {
      count: 1,
      link: '/api/dashboard/payments/?status=failed&from=2026-05-18&to=2026-06-16',
    });
    assert.deepEqual(body.requires_action, {
      count: 1,
      link: '/api/dashboard/payments/?status=requires_action',
    });
    const failed = await d.support.get(body.failed_payments.link.replace('/api/dashboard', ''));
    assert.deepEqual(
      failed.body.data.map((p: { payment_id: string }) => p.payment_id),
      [bFailed],
    );
  });

  it('200: webhook health: failed deliveries, pending ones and how long the oldest has waited', async () => {
    const { webhooks } = await home(d.developer);
    assert.deepEqual(webhooks, {
      failed: { count: 1, link: '/api/dashboard/events/?status=failed' },
      pending: {
        count: 2,
        retrying: 1,
        oldest_since: '2026-06-15T20:00:00.000Z',
        oldest_age_seconds: 12_600,
        link: '/api/dashboard/events/?status=pending',
      },
    });
  });

  it('200: payouts waiting: held for approval (production), for bank details, and in a run not yet confirmed', async () => {
    const sandbox = d.t.app.ctx.payouts;
    d.t.app.ctx.payouts = new PayoutService(d.t.db, d.t.clock, 'production');
    try {
      assert.deepEqual((await home()).payouts, {
        awaiting_confirmation: { count: 0, link: '/api/dashboard/payouts/?status=created' },
        awaiting_approval: { count: 7, link: '/api/dashboard/payouts/held/' },
        held: { count: 1, link: '/api/dashboard/payouts/held/' },
      });
    } finally {
      d.t.app.ctx.payouts = sandbox;
    }
    const run = await operatorRequest(d.t, 'POST', '/payouts/runs', {});
    assert.equal(run.status, 201, JSON.stringify(run.body));
    const { payouts } = await home();
    assert.deepEqual(
      [payouts.awaiting_confirmation.count, payouts.awaiting_approval.count, payouts.held.count],
      [7, 0, 1],
    );
  });

  it('another platform’s home counts none of this; 403 for the operator’s staff', async () => {
    const other = await anotherPlatform(d, 'Other');
    const body = await home(other.admin);
    assert.deepEqual(
      [
        body.collected_this_month.amount,
        body.due_this_month.amount,
        body.arrears.total,
        body.requires_action.count,
      ],
      ['0.00', '0.00', { tenancies: 0, amount: '0.00' }, 0],
    );
    assert.equal(body.webhooks.pending.oldest_since, null);
    const staff = await operatorStaff(d);
    assertError(await staff.get('/home/'), 403, 'forbidden', /operator console/);
  });

  itRefusesWithoutASession(() => d, 'GET', '/home/');
});
