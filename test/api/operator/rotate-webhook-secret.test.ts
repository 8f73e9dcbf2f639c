import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  startWebhookApp,
} from '../../support/operation-tests.ts';
import { type Received, verify } from '../../support/webhook-receiver.ts';

const DAY = 86_400_000;

describe('POST /api/operator/integrators/{integrator_id}/webhook-secret/rotate (rotateWebhookSecret)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());
  /** The secret the integrator signs with now. */
  let current = w.integrator.webhookSecret;

  const rotate = (id = w.integrator.id) =>
    operatorRequest(w.t, 'POST', `/integrators/${id}/webhook-secret/rotate`);

  /** The next delivery the endpoint receives: a new payment's event. */
  async function nextDelivery(): Promise<Received> {
    const id = await w.paidEvent();
    await runJobs(w.t);
    const received = w.receiver.received.filter((r) => r.headers['webhook-id'] === id);
    assert.equal(received.length, 1);
    return received[0]!;
  }
  const signatures = (received: Received) => String(received.headers['webhook-signature']).split(' ').length;

  it('201: a new secret; for 24 hours each delivery is signed with both, then with the new one only', async () => {
    const answer = await rotate();
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), ['previous_secret_expires_at', 'webhook_secret']);
    assert.match(answer.body.webhook_secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.notEqual(answer.body.webhook_secret, current);
    const expires = new Date(w.t.clock.now().getTime() + DAY).toISOString();
    assert.equal(answer.body.previous_secret_expires_at, expires);
    const endpoint = await w.endpoint();
    assert.deepEqual(
      [endpoint.body.secret_rotated_at, endpoint.body.previous_secret_expires_at],
      [w.t.clock.now().toISOString(), expires],
    );

    const during = await nextDelivery();
    assert.equal(signatures(during), 2);
    verify(current, during, w.t.clock.now());
    verify(answer.body.webhook_secret, during, w.t.clock.now());

    w.t.clock.advance(DAY + 1000);
    const afterwards = await nextDelivery();
    assert.equal(signatures(afterwards), 1);
    verify(answer.body.webhook_secret, afterwards, w.t.clock.now());
    assert.throws(() => verify(current, afterwards, w.t.clock.now()), /No matching signature found/);
    current = answer.body.webhook_secret;
  });

  it('rotating again within the overlap ends the older secret at once: never more than two sign', async () => {
    const first = await rotate();
    const second = await rotate();
    assert.equal(second.status, 201);
    const delivery = await nextDelivery();
    assert.equal(signatures(delivery), 2);
    verify(first.body.webhook_secret, delivery, w.t.clock.now());
    verify(second.body.webhook_secret, delivery, w.t.clock.now());
    assert.throws(() => verify(current, delivery, w.t.clock.now()), /No matching signature found/);
    current = second.body.webhook_secret;
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(rotate, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the secret stays', async () => {
    w.t.clock.advance(DAY + 1000);
    await assertOperatorTokenRequired(w.t, {
      method: 'POST',
      url: `/api/operator/integrators/${w.integrator.id}/webhook-secret/rotate`,
    });
    const delivery = await nextDelivery();
    assert.equal(signatures(delivery), 1);
    verify(current, delivery, w.t.clock.now());
  });
});
