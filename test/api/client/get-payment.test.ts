import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { paymentKeys } from '../../support/fixtures.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertClientTokenRequired,
  assertIdChecked,
  cardPayment,
  paidTenant,
} from '../../support/operation-tests.ts';
import { answerChallenge, newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/client/payments/{payment_id} (getPayment)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: a payment of this session, as POST /payments answered it', async () => {
    const { client, payment } = await paidTenant(t, api);
    const answer = await client.payment(payment.payment_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), paymentKeys('next_action'));
    assert.deepEqual(answer.body, payment);
  });

  it('follows a payment through 3DS: requires_action with next_action, then succeeded once the outcome arrives', async () => {
    const { client } = await newTenant(t, api);
    const waiting = await cardPayment(t, client, PAN.threeDsFirst);
    const before3ds = (await client.payment(waiting.payment_id)).body;
    assert.equal(before3ds.status, 'requires_action');
    assert.deepEqual(before3ds.next_action, waiting.next_action);
    assert.equal((await answerChallenge(t, waiting.next_action.url, 'authorise')).status, 202);
    await runJobs(t);
    const done = await client.payment(waiting.payment_id);
    assert.equal(done.status, 200);
    assert.equal(done.body.status, 'succeeded');
    assert.equal(done.body.next_action, null);
  });

  it('400 for an id that is not a payment id; 404 for an unknown one', async () => {
    const { client } = await newTenant(t, api);
    await assertIdChecked(client.payment, 'payment_id', 'pay_unknown', /^No such payment in this session\.$/);
  });

  it('another session’s payment, of the same user, another user or another integrator, is 404', async () => {
    const owner = await paidTenant(t, api);
    for (const client of [
      await owner.login(),
      (await newTenant(t, api)).client,
      (await newTenant(t, otherApi)).client,
    ]) {
      assertError(await client.payment(owner.payment.payment_id), 404, 'not_found');
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { payment } = await paidTenant(t, api);
    await assertClientTokenRequired(t, api, {
      method: 'GET',
      url: `/api/client/payments/${payment.payment_id}`,
    });
  });
});
