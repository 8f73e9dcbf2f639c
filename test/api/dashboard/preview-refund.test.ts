import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  anotherPlatform,
  operatorStaff,
  type PaymentsDashboard,
  refundAs,
  startPaymentsDashboard,
} from '../../support/dashboard-payments.ts';
import { cardPayment, paidTenant } from '../../support/operation-tests.ts';
import { count, newTenant } from '../../support/payment-client.ts';

describe('GET /api/dashboard/payments/{payment_id}/refund-preview/ (previewRefund)', () => {
  let d: PaymentsDashboard;
  before(async () => {
    d = await startPaymentsDashboard();
  });
  after(() => d.t.close());

  const preview = (id: string, query = '', who = d.finance) =>
    who.get(`/payments/${id}/refund-preview/${query}`);

  it('200: everything left by default, rent before fee; a part; the rest after an earlier refund', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const id = payment.payment_id;
    const all = await preview(id, '', d.support);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(all.body, {
      payment_id: id,
      amount: '1217.40',
      rent: '1200.00',
      fee: '17.40',
      refundable: '1217.40',
      refundable_after: '0.00',
      landlord: {
        loses: '1200.00',
        effect: 'less_payable',
        payout_id: null,
        payout_run_id: null,
        summary: 'The rent has not been paid out yet: the tenancy’s next payout is £1200.00 less.',
      },
      refused: null,
    });
    const part = (await preview(id, '?amount=100')).body;
    assert.deepEqual(
      [part.amount, part.rent, part.fee, part.refundable_after],
      ['100.00', '100.00', '0.00', '1117.40'],
    );
    assert.equal((await refundAs(d.finance, id, { amount: '1150.00' }, 'preview-1')).status, 201);
    const rest = (await preview(id)).body;
    assert.deepEqual(
      [rest.amount, rest.rent, rest.fee, rest.refundable, rest.landlord.loses],
      ['67.40', '50.00', '17.40', '67.40', '50.00'],
    );
    const feeOnly = (await preview(id, '?amount=17.40')).body;
    assert.deepEqual([feeOnly.rent, feeOnly.fee, feeOnly.landlord.loses], ['17.40', '0.00', '17.40']);
    assert.equal(await count(d.t, 'refunds WHERE payment_id = $1', [id]), 1, 'a preview refunds nothing');
  });

  it('200: rent in a run not yet confirmed, then paid out: the next payout loses it, and the refund is refused', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const id = payment.payment_id;
    const run = await operatorRequest(d.t, 'POST', '/payouts/runs', {});
    assert.equal(run.status, 201, JSON.stringify(run.body));
    const payout = run.body.items.find((item: { payment_ids: string[] }) => item.payment_ids.includes(id));
    const inRun = (await preview(id, '?amount=200.00')).body;
    assert.deepEqual(inRun.landlord, {
      loses: '200.00',
      effect: 'after_unconfirmed_run',
      payout_id: payout.payout_id,
      payout_run_id: run.body.payout_run_id,
      summary:
        `The rent is in payout ${payout.payout_id} of run ${run.body.payout_run_id}, not yet confirmed: that payout ` +
        'still pays it, and the tenancy’s next payout after it is £200.00 less.',
    });
    assert.equal(inRun.refused, null);
    await operatorRequest(d.t, 'POST', `/payouts/runs/${run.body.payout_run_id}/confirm`);
    const paid = (await preview(id, '?amount=200.00')).body;
    assert.deepEqual([paid.landlord.effect, paid.landlord.loses], ['carried_negative', '200.00']);
    assert.match(paid.landlord.summary, /carried as a negative into the tenancy’s next payout/);
    assert.equal(paid.refused.error, 'paid_out');
    assert.match(paid.refused.detail, /cannot be refunded from your platform’s dashboard\. Ask the operator/);
  });

  it('409 for a failed payment and one refunded in full; 400 for an amount malformed or above what is left', async () => {
    const declined = await cardPayment(d.t, (await newTenant(d.t, d.api)).client, '4000000000000002');
    assertError(await preview(declined.payment_id), 409, 'conflict', /this one is failed/);
    const { payment } = await paidTenant(d.t, d.api);
    const id = payment.payment_id;
    const tooMuch = await preview(id, '?amount=1217.41');
    assert.deepEqual(
      [tooMuch.status, tooMuch.body],
      [400, { amount: ['Enter an amount from 0.01 to 1217.40.'] }],
    );
    assertError(await preview(id, '?amount=12.345'), 400, 'invalid_request', /two decimal places/);
    assert.equal((await preview(id, '?amount=0')).status, 400);
    assert.equal((await refundAs(d.admin, id, undefined, 'preview-all')).status, 201);
    assertError(await preview(id), 409, 'conflict', /refunded in full already/);
  });

  it('404 for another platform’s payment and an unknown one; 400 for a malformed id; 403 for the operator’s staff', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const other = await anotherPlatform(d, 'Other');
    assertError(await preview(payment.payment_id, '', other.admin), 404, 'not_found');
    assertError(await preview('pay_unknown'), 404, 'not_found');
    assertError(await preview('nope'), 400, 'invalid_request', /payment id/);
    const staff = await operatorStaff(d);
    assertError(await preview(payment.payment_id, '', staff), 403, 'forbidden', /operator console/);
  });

  itRefusesWithoutASession(() => d, 'GET', '/payments/pay_x/refund-preview/');
});
