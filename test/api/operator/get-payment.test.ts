import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { paymentKeys } from '../../support/fixtures.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  cardPayment,
  paidTenant,
} from '../../support/operation-tests.ts';
import { newTenant, startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/operator/payments/{payment_id} (getPayment)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const show = (id: string) => operatorRequest(t, 'GET', `/payments/${id}`);

  it('200: any integrator’s payment, as the Client API shows it, with its integrator and refunded', async () => {
    for (const target of [api, otherApi]) {
      const { payment } = await paidTenant(t, target);
      const answer = await show(payment.payment_id);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(Object.keys(answer.body).sort(), paymentKeys('integrator_id', 'refunded'));
      const { next_action: _, ...view } = payment;
      assert.deepEqual(answer.body, { ...view, integrator_id: target.integratorId, refunded: '0.00' });
    }
  });

  it('shows what happened since: refunded after a refund, the outcome of a declined card', async () => {
    const { payment } = await paidTenant(t, api);
    const refund = await operatorRequest(t, 'POST', `/payments/${payment.payment_id}/refunds`, {
      amount: '100.00',
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const shown = await show(payment.payment_id);
    assert.deepEqual([shown.body.status, shown.body.refunded], ['succeeded', '100.00']);
    const declined = await cardPayment(t, (await newTenant(t, api)).client, '4000000000000002');
    const failed = await show(declined.payment_id);
    assert.deepEqual(
      [failed.body.status, failed.body.failure_code, failed.body.refunded],
      ['failed', 'card_declined', '0.00'],
    );
  });

  it('400 for an id that is not a payment id; 404 for an unknown one', async () => {
    await assertIdChecked(show, 'payment_id', 'pay_nope', /^No payment pay_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    const { payment } = await paidTenant(t, api);
    await assertOperatorTokenRequired(t, {
      method: 'GET',
      url: `/api/operator/payments/${payment.payment_id}`,
    });
  });
});
