import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, operatorRequest, send } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  anotherPlatform,
  operatorStaff,
  type PaymentsDashboard,
  refundAs,
  signInEveryoneAgain,
  startPaymentsDashboard,
} from '../../support/dashboard-payments.ts';
import { runJobs } from '../../support/helpers.ts';
import { cardPayment, paidTenant } from '../../support/operation-tests.ts';
import { answerChallenge, cardToken, newTenant, PAN } from '../../support/payment-client.ts';
import { Receiver } from '../../support/webhook-receiver.ts';

describe('GET /api/dashboard/payments/{payment_id}/ (getPayment)', () => {
  let d: PaymentsDashboard;
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
    d = await startPaymentsDashboard({ config: { allowPrivateWebhookHosts: true } });
    const set = await d.admin.request('PUT', '/webhook-endpoint/', {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
  });
  after(async () => {
    await d.t.close();
    await receiver.close();
  });

  const at = (ms: number) => new Date(ms).toISOString();
  const timelineOf = (body: { timeline: { type: string; at: string }[] }) =>
    body.timeline.map((entry) => [entry.type, entry.at]);

  it('200: a 3-D Secure payment partly refunded: its tenant, timeline and webhook deliveries', async () => {
    const tenant = await newTenant(d.t, d.api);
    const made = d.t.clock.now().getTime();
    const waiting = await tenant.client.pay({ card_token: await cardToken(d.t, PAN.threeDsFirst) });
    assert.equal(waiting.body.status, 'requires_action', JSON.stringify(waiting.body));
    const id = waiting.body.payment_id;
    d.t.clock.advance(20_000);
    assert.equal((await answerChallenge(d.t, waiting.body.next_action.url, 'authorise')).status, 202);
    await runJobs(d.t);
    d.t.clock.advance(60_000);
    const refund = await refundAs(d.finance, id, { amount: '200.00' }, 'get-payment-1');
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    receiver.respond = () => ({ status: 500, body: 'down' });
    await runJobs(d.t);
    receiver.respond = () => ({ status: 200, body: 'ok' });

    const answer = await d.support.get(`/payments/${id}/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const body = answer.body;
    assert.deepEqual(
      [body.payment_id, body.status, body.amount, body.pure_amount, body.fee, body.refunded, body.refundable],
      [id, 'succeeded', '1217.40', '1200.00', '17.40', '200.00', '1017.40'],
    );
    assert.deepEqual(
      [body.email, body.name, body.user_id, body.payment_reference, body.method, body.card.last4],
      [tenant.email, 'Ada Lovelace', tenant.userId, `PAY-${tenant.userId}`, 'card', '3220'],
    );
    assert.deepEqual(timelineOf(body), [
      ['created', at(made)],
      ['action_required', at(made)],
      ['succeeded', at(made + 20_000)],
      ['funds_available', at(made + 20_000)],
      ['refund', at(made + 80_000)],
    ]);
    assert.match(body.timeline[1].summary, /^3-D Secure/);
    assert.deepEqual(
      [body.timeline[4].status, body.timeline[4].amount, body.timeline[4].refund_id],
      ['succeeded', '200.00', refund.body.refund_id],
    );
    assert.deepEqual(
      body.webhook_deliveries.map((e: Record<string, unknown>) => [
        e.type,
        e.status,
        e.attempt_count,
        e.last_status_code,
        e.next_attempt_at !== null,
      ]),
      [
        ['payment_success', 'delivered', 1, 200, false],
        ['payment_refunded', 'pending', 1, 500, true],
      ],
    );
    assert.equal(body.timeline[2].event_id, body.webhook_deliveries[0].event_id);
  });

  it('200: paid out in a confirmed run, then disputed and won: settlement, payout and dispute on the timeline', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const made = d.t.clock.now().getTime();
    d.t.clock.advance(3_600_000);
    const run = await operatorRequest(d.t, 'POST', '/payouts/runs', {});
    assert.equal(run.status, 201, JSON.stringify(run.body));
    const payout = run.body.items.find((item: { payment_ids: string[] }) =>
      item.payment_ids.includes(payment.payment_id),
    );
    d.t.clock.advance(3_600_000);
    await operatorRequest(d.t, 'POST', `/payouts/runs/${run.body.payout_run_id}/confirm`);
    d.t.clock.advance(3_600_000);
    const charge = payment.processor_reference;
    assert.equal((await send(d.t, { method: 'POST', url: `/sandbox/disputes/${charge}/open` })).status, 202);
    await runJobs(d.t);
    d.t.clock.advance(3_600_000);
    assert.equal((await send(d.t, { method: 'POST', url: `/sandbox/disputes/${charge}/won` })).status, 202);
    await runJobs(d.t);
    await signInEveryoneAgain(d);

    const answer = await d.finance.get(`/payments/${payment.payment_id}/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const hour = 3_600_000;
    assert.deepEqual(timelineOf(answer.body), [
      ['created', at(made)],
      ['succeeded', at(made)],
      ['funds_available', at(made)],
      ['in_payout_run', at(made + hour)],
      ['paid_out', at(made + 2 * hour)],
      ['dispute_opened', at(made + 3 * hour)],
      ['dispute_closed', at(made + 4 * hour)],
    ]);
    const [, , , inRun, paidOut, opened, closed] = answer.body.timeline;
    assert.equal(inRun.payout_id, payout.payout_id);
    assert.equal(paidOut.payout_run_id, run.body.payout_run_id);
    assert.deepEqual([opened.amount, opened.status], ['1217.40', 'open']);
    assert.deepEqual([closed.status, closed.summary], ['won', 'Dispute won: the payment stands.']);
  });

  it('200: a declined payment: made and failed with the bank’s reason; nothing to refund', async () => {
    const tenant = await newTenant(d.t, d.api);
    const declined = await cardPayment(d.t, tenant.client, '4000000000000002');
    const answer = await d.developer.get(`/payments/${declined.payment_id}/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      answer.body.timeline.map((entry: { type: string }) => entry.type),
      ['created', 'failed'],
    );
    assert.match(answer.body.timeline[1].summary, /^Failed \(card_declined\): /);
    assert.equal(answer.body.refundable, '0.00');
  });

  it('404 for another platform’s payment and an unknown one; 400 for a malformed id', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const other = await anotherPlatform(d, 'Other');
    assertError(await other.admin.get(`/payments/${payment.payment_id}/`), 404, 'not_found');
    assertError(await d.admin.get('/payments/pay_unknown/'), 404, 'not_found', /^No payment pay_unknown\.$/);
    assertError(await d.admin.get('/payments/nope/'), 400, 'invalid_request', /payment id/);
  });

  it('403 for the operator’s staff', async () => {
    const staff = await operatorStaff(d);
    assertError(await staff.get('/payments/pay_unknown/'), 403, 'forbidden', /operator console/);
  });

  itRefusesWithoutASession(() => d, 'GET', '/payments/pay_x/');
});
