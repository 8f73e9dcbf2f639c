import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { itRefusesWithoutASession, teamIdsByRole } from '../../support/dashboard-client.ts';
import {
  anotherPlatform,
  operatorStaff,
  type PaymentsDashboard,
  refundAs,
  startPaymentsDashboard,
} from '../../support/dashboard-payments.ts';
import { cardPayment, paidTenant } from '../../support/operation-tests.ts';
import { count, newTenant } from '../../support/payment-client.ts';

describe('POST /api/dashboard/payments/{payment_id}/refunds/ (refundPayment)', () => {
  let d: PaymentsDashboard;
  before(async () => {
    d = await startPaymentsDashboard();
  });
  after(() => d.t.close());

  const refundsOf = (paymentId: string) => count(d.t, 'refunds WHERE payment_id = $1', [paymentId]);
  const refundAudits = () => count(d.t, "audit_log WHERE action = 'payment.refund'");

  it('201: a finance person refunds part, the audit entry names them; the same key again is the same refund', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const id = payment.payment_id;
    const refunded = await refundAs(d.finance, id, { amount: '200.00' }, 'dash-refund-1');
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    assert.deepEqual(
      [refunded.body.payment_id, refunded.body.amount, refunded.body.status, refunded.body.payment.status],
      [id, '200.00', 'succeeded', 'succeeded'],
    );
    const audit = (await d.admin.get('/audit-log/')).body.data[0];
    const ids = await teamIdsByRole(d);
    assert.deepEqual(
      [audit.action, audit.target, audit.actor, audit.after],
      [
        'payment.refund',
        { type: 'payment', id },
        {
          type: 'dashboard_user',
          user_id: ids.finance,
          email: 'finance@platform.example',
          role: 'finance',
          integrator_id: d.integrator.id,
        },
        { refund_id: refunded.body.refund_id, amount: '200.00' },
      ],
    );

    const again = await refundAs(d.finance, id, { amount: '200.00' }, 'dash-refund-1');
    assert.deepEqual([again.status, again.body.refund_id], [200, refunded.body.refund_id]);
    assert.equal(await refundsOf(id), 1, 'nothing more refunded');
    assertError(
      await refundAs(d.finance, id, { amount: '300.00' }, 'dash-refund-1'),
      422,
      'idempotency_mismatch',
      /use a new key/,
    );
    const rest = await refundAs(d.admin, id, undefined, 'dash-refund-2');
    assert.deepEqual(
      [rest.status, rest.body.amount, rest.body.payment.status],
      [201, '1017.40', 'succeeded'],
    );
    assertError(await refundAs(d.admin, id, undefined, 'dash-refund-3'), 409, 'conflict', /in full already/);
  });

  it('403: a support person’s crafted refund (and a developer’s) is refused by the service; nothing changes', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const audits = await refundAudits();
    for (const person of [d.support, d.developer]) {
      assertError(
        await refundAs(person, payment.payment_id, { amount: '10.00' }, `crafted-${person.email}`),
        403,
        'forbidden',
        /does not allow this \(refunds\.create\)/,
      );
    }
    assert.equal(await refundsOf(payment.payment_id), 0);
    assert.equal(await refundAudits(), audits);
    assert.equal((await d.support.get(`/payments/${payment.payment_id}/`)).body.refunded, '0.00');
  });

  it('400: no Idempotency-Key, a malformed one, an amount malformed or above what is left', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const id = payment.payment_id;
    assertError(
      await refundAs(d.finance, id, { amount: '1.00' }, null),
      400,
      'invalid_request',
      /idempotency-key/,
    );
    assertError(await refundAs(d.finance, id, {}, 'with space'), 400, 'invalid_request', /Idempotency-Key/);
    const malformed = await refundAs(d.finance, id, { amount: 'ten' }, 'bad-amount');
    assert.deepEqual(
      [malformed.status, malformed.body],
      [400, { amount: ['Enter an amount in pounds, e.g. "100.00".'] }],
    );
    const tooMuch = await refundAs(d.finance, id, { amount: '1217.41' }, 'too-much');
    assert.deepEqual(
      [tooMuch.status, tooMuch.body],
      [400, { amount: ['Enter an amount from 0.01 to 1217.40.'] }],
    );
    assert.equal(await refundsOf(id), 0);
  });

  it('409: a failed payment; a payment whose rent is in a confirmed payout (paid_out: only the operator now)', async () => {
    const declined = await cardPayment(d.t, (await newTenant(d.t, d.api)).client, '4000000000000002');
    assertError(
      await refundAs(d.finance, declined.payment_id, {}, 'declined'),
      409,
      'conflict',
      /Only a succeeded payment can be refunded; this one is failed\./,
    );
    const { payment } = await paidTenant(d.t, d.api);
    const run = await operatorRequest(d.t, 'POST', '/payouts/runs', {});
    assert.equal(run.status, 201, JSON.stringify(run.body));
    await operatorRequest(d.t, 'POST', `/payouts/runs/${run.body.payout_run_id}/confirm`);
    assertError(
      await refundAs(d.finance, payment.payment_id, {}, 'paid-out'),
      409,
      'paid_out',
      /cannot be refunded from your platform’s dashboard\. Ask the operator/,
    );
    assert.equal(await refundsOf(payment.payment_id), 0);
  });

  it('404 for another platform’s payment (even its admin) and an unknown one; 400 for a malformed id; 403 for the operator’s staff', async () => {
    const { payment } = await paidTenant(d.t, d.api);
    const other = await anotherPlatform(d, 'Other');
    assertError(await refundAs(other.admin, payment.payment_id, {}, 'other'), 404, 'not_found');
    assertError(await refundAs(d.admin, 'pay_unknown', {}, 'unknown'), 404, 'not_found');
    assertError(await refundAs(d.admin, 'nope', {}, 'nope'), 400, 'invalid_request', /payment id/);
    const staff = await operatorStaff(d);
    assertError(await refundAs(staff, payment.payment_id, {}, 'staff'), 403, 'forbidden', /operator console/);
    assert.equal(await refundsOf(payment.payment_id), 0);
  });

  itRefusesWithoutASession(() => d, 'POST', '/payments/pay_x/refunds/', {});
});
