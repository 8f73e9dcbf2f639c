import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
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

describe('POST /api/client/payments/{payment_id}/cancel (cancelPayment)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const cancel = (client: Client, id: string) => client.call('POST', `/payments/${id}/cancel`);

  it('200: a payment waiting for 3DS is canceled; a late Authorise cannot charge; the session can pay again', async () => {
    const { client } = await newTenant(t, api);
    const waiting = await cardPayment(t, client, PAN.threeDsAlways);
    assert.equal(waiting.status, 'requires_action');
    const answer = await cancel(client, waiting.payment_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      { ...answer.body, status: undefined, next_action: undefined, updated_at: undefined },
      { ...waiting, status: undefined, next_action: undefined, updated_at: undefined },
    );
    assert.equal(answer.body.status, 'canceled');
    assert.equal(answer.body.next_action, null);
    assert.equal((await client.payment(waiting.payment_id)).body.status, 'canceled');
    assert.equal((await answerChallenge(t, waiting.next_action.url, 'authorise')).status, 409);
    assert.deepEqual(await paymentEvents(t, waiting.payment_id), [], 'canceled records no event');
    assert.equal((await cardPayment(t, client)).status, 'succeeded');
  });

  it('409 for a payment that is not waiting (succeeded, or canceled already); it stays as it was', async () => {
    const { client, payment } = await paidTenant(t, api);
    assertError(
      await cancel(client, payment.payment_id),
      409,
      'conflict',
      /^Only a payment waiting for authentication can be canceled; this one is succeeded\.$/,
    );
    assert.deepEqual((await client.payment(payment.payment_id)).body, payment);
    const other = await newTenant(t, api);
    const waiting = await cardPayment(t, other.client, PAN.threeDsAlways);
    assert.equal((await cancel(other.client, waiting.payment_id)).status, 200);
    assertError(await cancel(other.client, waiting.payment_id), 409, 'conflict', /this one is canceled/);
  });

  it('400 for an id that is not a payment id; 404 for an unknown one', async () => {
    const { client } = await newTenant(t, api);
    await assertIdChecked(
      (id) => cancel(client, id),
      'payment_id',
      'pay_unknown',
      /^No such payment in this session\.$/,
    );
  });

  it('another tenant’s waiting payment, of this or another integrator, is 404 and keeps waiting', async () => {
    const owner = await newTenant(t, api);
    const waiting = await cardPayment(t, owner.client, PAN.threeDsAlways);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      assertError(await cancel(stranger.client, waiting.payment_id), 404, 'not_found');
    }
    assert.equal((await owner.client.payment(waiting.payment_id)).body.status, 'requires_action');
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { client } = await newTenant(t, api);
    const waiting = await cardPayment(t, client, PAN.threeDsAlways);
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: `/api/client/payments/${waiting.payment_id}/cancel`,
    });
  });
});
