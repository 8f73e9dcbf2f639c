import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertClientTokenRequired,
  assertIdChecked,
  cardPayment,
  paidTenant,
} from '../../support/operation-tests.ts';
import {
  answerChallenge,
  type Client,
  newTenant,
  PAN,
  paymentEvents,
  startPaymentApp,
} from '../../support/payment-client.ts';
import {
  integrationSchedules,
  type ScheduleTenant,
  scheduleOk,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('POST /api/client/payments/{payment_id}/confirm (confirmPayment)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const confirm = (client: Client, id: string) => client.call('POST', `/payments/${id}/confirm`);

  /** A tenant whose schedule charged a card that needs 3DS every time, on 3 March: the charge waits for them. */
  async function waitingCharge(): Promise<{ tenant: ScheduleTenant; paymentId: string }> {
    const tenant = await scheduleTenant(t, api, { rent_due_day: 3 }, PAN.threeDsAlways, () => runJobs(t));
    const schedule = await scheduleOk(tenant);
    const run = await integrationSchedules(t, api).run('2026-03-03');
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const [event] = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.equal(event?.type, 'payment_action_required');
    return { tenant, paymentId: String(event.data.payment.payment_id) };
  }

  it('200: the recurring charge in requires_action with its 3DS page; Authorise there makes it succeed', async () => {
    const { tenant, paymentId } = await waitingCharge();
    const listed = (await tenant.client.call('GET', '/session')).body.action_required;
    assert.deepEqual(
      listed.map((a: { payment: { payment_id: string } }) => a.payment.payment_id),
      [paymentId],
    );
    t.clock.advance(60_000);
    const answer = await confirm(tenant.client, paymentId);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.payment_id, paymentId);
    assert.equal(answer.body.status, 'requires_action');
    assert.ok(answer.body.schedule_id);
    assert.equal(answer.body.next_action.type, 'three_ds');
    assert.match(answer.body.next_action.url, /\/sandbox\/3ds\/ch_sandbox_[A-Za-z0-9]+$/);
    const again = await confirm(tenant.client, paymentId);
    assert.equal(again.status, 200, 'asked again: the payment as it stands');
    assert.deepEqual(again.body.next_action, answer.body.next_action);

    assert.equal((await answerChallenge(t, answer.body.next_action.url, 'authorise')).status, 202);
    await runJobs(t);
    assert.equal((await tenant.client.payment(paymentId)).body.status, 'succeeded');
    assert.deepEqual(await paymentEvents(t, paymentId), ['payment_action_required', 'payment_success']);
    assert.deepEqual((await tenant.client.call('GET', '/session')).body.action_required, []);
    assertError(await confirm(tenant.client, paymentId), 409, 'conflict', /this payment is succeeded/);
  });

  it('409 for a payment that is not a recurring charge waiting for the tenant; nothing changes', async () => {
    const { client, payment } = await paidTenant(t, api);
    assertError(
      await confirm(client, payment.payment_id),
      409,
      'conflict',
      /^Only a recurring charge waiting for the tenant can be confirmed; this payment is succeeded\.$/,
    );
    const other = await newTenant(t, api);
    const waiting = await cardPayment(t, other.client, PAN.threeDsAlways);
    assertError(await confirm(other.client, waiting.payment_id), 409, 'conflict', /requires_action/);
    assert.deepEqual((await other.client.payment(waiting.payment_id)).body, waiting);
  });

  it('400 for an id that is not a payment id; 404 for an unknown one', async () => {
    const { client } = await newTenant(t, api);
    await assertIdChecked(
      (id) => confirm(client, id),
      'payment_id',
      'pay_unknown',
      /^No such payment for this tenant\.$/,
    );
  });

  it('another tenant, of this or another integrator, gets 404 for the charge; it keeps waiting', async () => {
    const { tenant, paymentId } = await waitingCharge();
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      assertError(await confirm(stranger.client, paymentId), 404, 'not_found');
    }
    const [row] = await t.db.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [
      paymentId,
    ]);
    assert.equal(row!.status, 'requires_action');
    assert.equal((await tenant.client.payment(paymentId)).body.next_action, null, 'not confirmed yet');
  });

  it('401 without a token, and once the token has lapsed', async () => {
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: '/api/client/payments/pay_unknown/confirm',
    });
  });
});
