/**
 * Payouts follow Stripe's settlement (through its local stand-in): a payment is paid out only once its balance
 * transaction's `available_on` is reached (read by the settlement job, retried while Stripe has none), a disputed
 * payment is held until the dispute ends, one won is payable again, and one lost after payout is deducted from the
 * tenancy's next payout; `reconcile` checks both and names the payment when they are tampered with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorCliEnv, operatorRequest, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runCli, runJobs } from '../../support/helpers.ts';
import { clientOf } from '../../support/payment-client.ts';
import {
  confirmationToken,
  deliverStripeEvents,
  type StripeApp,
  startStripeApp,
} from '../../support/stripe-app.ts';

const DAY = 86_400_000;

describe('payouts follow Stripe settlement and disputes', () => {
  let s: StripeApp;
  let env: Record<string, string>;
  const operator = (method: 'GET' | 'POST', url: string, payload?: object) =>
    operatorRequest(s.t, method, url, payload);
  /** A run as of `asOf`: the payment references it pays and their amounts. */
  const run = async (asOf: string) => {
    const created = await operator('POST', '/payouts/runs', { as_of: asOf });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return {
      id: created.body.payout_run_id as string,
      items: created.body.items.map((p: { payment_reference: string; amount: string }) => [
        p.payment_reference,
        p.amount,
      ]),
    };
  };
  /** A card payment by the tenant of `email`; returns our payment id and Stripe's PaymentIntent id. */
  const pay = async (email: string, amount = '1200.00') => {
    const session = await s.api.loginOk(email);
    const paid = await clientOf(s.t, session.token).pay({
      pure_amount: amount,
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'succeeded');
    const [row] = await s.t.db.query<{ processor_payment_id: string }>(
      'SELECT processor_payment_id FROM payments WHERE id = $1',
      [paid.body.payment_id],
    );
    return { paymentId: paid.body.payment_id as string, intentId: row!.processor_payment_id };
  };
  /** The payment's dispute events, oldest first, from the Integration API's event list: "type status amount". */
  const disputeEvents = async (paymentId: string) => {
    const listed = await send(s.t, {
      method: 'GET',
      url: '/api/third-party/events/?limit=100',
      headers: { authorization: `Token ${s.api.serverToken}` },
    });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.data
      .filter(
        (e: { type: string; data: { payment?: { payment_id: string } } }) =>
          e.type.startsWith('payment_dispute') && e.data.payment?.payment_id === paymentId,
      )
      .reverse()
      .map(
        (e: { type: string; data: { dispute: { status: string; amount: string } } }) =>
          `${e.type} ${e.data.dispute.status} ${e.data.dispute.amount}`,
      );
  };
  /** A payment's entries in its tenancy's ledger (Integration API), as "type amount". */
  const ledgerEntriesOf = async (reference: string, paymentId: string) => {
    const ledger = await send(s.t, {
      method: 'GET',
      url: `/api/third-party/ledger/?payment_reference=${reference}`,
      headers: { authorization: `Token ${s.api.serverToken}` },
    });
    assert.equal(ledger.status, 200, JSON.stringify(ledger.body));
    return ledger.body.entries
      .filter((e: { payment_id?: string }) => e.payment_id === paymentId)
      .map((e: { type: string; amount: string }) => `${e.type} ${e.amount}`);
  };
  const today = () => s.t.clock.now().toISOString().slice(0, 10);
  const fundsAvailableAt = async (paymentId: string) => {
    const [row] = await s.t.db.query<{ at: string | null }>(
      `SELECT to_char(funds_available_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at
         FROM payments WHERE id = $1`,
      [paymentId],
    );
    return row!.at;
  };

  before(async () => {
    s = await startStripeApp();
    await s.api.onboardOk(
      ['a', 'b', 'c', 'd'].map((name, i) =>
        userBody({
          user_id: i + 1,
          email: `${name}@example.com`,
          tenant: [tenancyBody({ payment_reference: `SETTLE-${name.toUpperCase()}` })],
        }),
      ),
    );
    env = await operatorCliEnv(s.t);
  });
  after(() => s?.close());

  it('pays a payment out only from its available_on, read from Stripe and asked again while Stripe has none', async () => {
    // 2026-03-01 09:00: the charge; Stripe makes its funds available on 2026-03-03.
    const a = await pay('a@example.com');
    const charge = s.stand.charges.get(String(s.stand.paymentIntents.get(a.intentId)!.latest_charge))!;
    const transactionId = String(charge.balance_transaction);
    const transaction = s.stand.balanceTransactions.get(transactionId)!;
    assert.equal(transaction.available_on, Date.parse('2026-03-03T00:00:00Z') / 1000);

    // Stripe has no balance transaction yet: the job records nothing and asks again later.
    s.stand.balanceTransactions.delete(transactionId);
    await runJobs(s.t);
    assert.equal(await fundsAvailableAt(a.paymentId), null);
    assert.deepEqual((await run(today())).items, [], 'funds not known: not payable');

    s.stand.balanceTransactions.set(transactionId, transaction);
    s.t.clock.advance(60_000);
    await runJobs(s.t);
    assert.equal(await fundsAvailableAt(a.paymentId), '2026-03-03T00:00:00Z');
    assert.deepEqual(
      (await run('2026-12-31')).items,
      [],
      'a run dated ahead pays no funds not available today',
    );
    assert.ok(
      s.stand.requests.some((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${a.intentId}`),
      'read from the PaymentIntent (its latest charge and balance transaction expanded)',
    );

    s.t.clock.advance(2 * DAY);
    assert.deepEqual((await run('2026-03-02')).items, [], 'before available_on: not payable');
    const paid = await run('2026-03-03');
    assert.deepEqual(paid.items, [['SETTLE-A', '1200.00']]);
    assert.equal((await operator('POST', `/payouts/runs/${paid.id}/confirm`)).status, 200);
  });

  it('holds a disputed payment out of runs until the dispute ends; one won is payable again', async () => {
    const b = await pay('b@example.com');
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
    const dispute = s.stand.openDispute(b.intentId);
    await deliverStripeEvents(s.t, s.stand);
    assert.deepEqual((await run(today())).items, [], 'under dispute: held');

    s.t.clock.advance(60_000);
    s.stand.closeDispute(dispute, 'won');
    await deliverStripeEvents(s.t, s.stand);
    const paid = await run(today());
    assert.deepEqual(paid.items, [['SETTLE-B', '1200.00']]);
    assert.equal((await operator('POST', `/payouts/runs/${paid.id}/confirm`)).status, 200);

    // The platform heard of both, once each, with the dispute's status and amount.
    assert.deepEqual(await disputeEvents(b.paymentId), [
      'payment_disputed open 1217.40',
      'payment_dispute_closed won 1217.40',
    ]);
  });

  it('a dispute lost after payout deducts the rent the landlord still holds from the next payout', async () => {
    const c = await pay('c@example.com');
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
    const first = await run(today());
    assert.deepEqual(first.items, [['SETTLE-C', '1200.00']]);
    assert.equal((await operator('POST', `/payouts/runs/${first.id}/confirm`)).status, 200);

    // £200.00 refunded (all rent: the refund gives the rent back first), then the rest is disputed and lost.
    // Paid out: only the operator can refund it now.
    const refund = await operator('POST', `/payments/${c.paymentId}/refunds`, { amount: '200.00' });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const dispute = s.stand.openDispute(c.intentId);
    s.stand.closeDispute(dispute, 'lost');
    // The events arrive out of order: `closed` is applied first; the later `created` does not reopen it.
    const created = s.stand.events.find(
      (e) => e.type === 'charge.dispute.created' && e.object.id === dispute,
    )!;
    created.delivered = true;
    await deliverStripeEvents(s.t, s.stand);
    created.delivered = false;
    await deliverStripeEvents(s.t, s.stand);
    const [row] = await s.t.db.query<{ dispute_status: string }>(
      'SELECT dispute_status FROM payments WHERE id = $1',
      [c.paymentId],
    );
    assert.equal(row!.dispute_status, 'lost');
    assert.deepEqual(
      await disputeEvents(c.paymentId),
      ['payment_dispute_closed lost 1017.40'],
      'the late created event is not sent after the closed one',
    );
    // In the tenancy's ledger the lost dispute gives the rent back as unpaid, like a refund of the rest.
    assert.deepEqual(await ledgerEntriesOf('SETTLE-C', c.paymentId), [
      'payment 1200.00',
      'refund 200.00',
      'refund 1000.00',
    ]);

    // Next month's rent, £1,500.00, less the £200.00 refunded and the £1,000.00 lost to the dispute.
    await pay('c@example.com', '1500.00');
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
    const next = await run(today());
    assert.deepEqual(next.items, [['SETTLE-C', '300.00']]);
    const [lines] = await s.t.db.query<{ kinds: string }>(
      `SELECT string_agg(l.kind || ' ' || l.amount_pence, ', ' ORDER BY l.kind) AS kinds
         FROM payout_lines l JOIN payouts po ON po.id = l.payout_id WHERE po.payout_run_id = $1`,
      [next.id],
    );
    assert.equal(lines!.kinds, 'dispute -100000, payment 150000, refund -20000');
    assert.deepEqual((await run(today())).items, [], 'the deduction is made once');
  });

  it('a dispute over part of a payment, lost while the payment waits in an unconfirmed run, deducts its rent part', async () => {
    const d = await pay('d@example.com');
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
    const waiting = await run(today());
    assert.deepEqual(waiting.items, [['SETTLE-D', '1200.00']]);

    // £500.00 of the £1,217.40 disputed and lost before the run is confirmed; then the run is canceled.
    const dispute = s.stand.openDispute(d.intentId, 50_000);
    s.stand.closeDispute(dispute, 'lost');
    await deliverStripeEvents(s.t, s.stand);
    assert.deepEqual((await run(today())).items, [], 'the deduction alone: nothing to pay, it waits');
    assert.equal((await operator('POST', `/payouts/runs/${waiting.id}/cancel`)).status, 200);
    const paid = await run(today());
    assert.deepEqual(paid.items, [['SETTLE-D', '700.00']], 'the rent less the £500.00 the dispute took back');

    assert.deepEqual(await ledgerEntriesOf('SETTLE-D', d.paymentId), ['payment 1200.00', 'refund 500.00']);
  });

  it('reconcile: clean, then names a payment paid out before its funds, a wrong dispute deduction and an unsettled payment', async () => {
    const clean = await runCli(['payouts', 'reconcile'], env);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);

    const [paidOut] = await s.t.db.query<{ payment_id: string }>(
      `SELECT l.payment_id FROM payout_lines l JOIN payments p ON p.id = l.payment_id
        WHERE l.kind = 'payment' AND p.dispute_status IS NULL ORDER BY p.created_at LIMIT 1`,
    );
    // The dispute lost after payout (£1,000.00 of rent): its deduction made £1,200.00.
    const [disputed] = await s.t.db.query<{ payment_id: string }>(
      "SELECT payment_id FROM payout_lines WHERE kind = 'dispute' AND amount_pence = -100000",
    );
    await s.t.db.query("UPDATE payments SET funds_available_at = '2026-04-01' WHERE id = $1", [
      paidOut!.payment_id,
    ]);
    await s.t.db.query(
      "UPDATE payout_lines SET amount_pence = -120000 WHERE kind = 'dispute' AND payment_id = $1",
      [disputed!.payment_id],
    );
    // A payment whose settlement job never ran (nothing runs jobs here) is named after three days.
    const unsettled = await pay('a@example.com');
    s.t.clock.advance(4 * DAY);
    const tampered = await runCli(['payouts', 'reconcile'], env);
    assert.equal(tampered.code, 1, tampered.stdout + tampered.stderr);
    assert.match(
      tampered.stdout,
      new RegExp(
        `MISMATCH payment ${paidOut!.payment_id} is paid out by payout po_\\w+ \\(as of 2026-03-0\\d\\) before its funds were available \\(2026-04-01\\)`,
      ),
    );
    assert.match(
      tampered.stdout,
      new RegExp(
        `MISMATCH payment ${disputed!.payment_id}: payout po_\\w+ deducts £1200.00 for its lost dispute but the dispute's rent part is £1000.00`,
      ),
    );
    assert.match(
      tampered.stdout,
      new RegExp(
        `MISMATCH payment ${unsettled.paymentId} succeeded on \\d{4}-\\d{2}-\\d{2} but when its funds are available is still unknown`,
      ),
    );
  });
});
