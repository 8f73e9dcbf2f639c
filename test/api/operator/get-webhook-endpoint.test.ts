import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  paidTenant,
  startWebhookApp,
} from '../../support/operation-tests.ts';

describe('GET /api/operator/integrators/{integrator_id}/webhook (getWebhookEndpoint)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());

  it('200: the URL, its state and how many deliveries are pending and failed', async () => {
    const answer = await w.endpoint();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      integrator_id: w.integrator.id,
      webhook_url: w.receiver.url,
      state: 'enabled',
      disabled_at: null,
      disabled_reason: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
      pending: 0,
      failed: 0,
    });
    await paidTenant(w.t, w.api);
    assert.equal((await w.endpoint()).body.pending, 1, 'the payment’s event waits for the worker');
    await runJobs(w.t);
    assert.equal((await w.endpoint()).body.pending, 0);
  });

  it('disabled after a 410 Gone, with when and why, and the failed delivery counted', async () => {
    await w.disableEndpoint();
    const answer = await w.endpoint();
    const now = w.t.clock.now().toISOString();
    assert.deepEqual(
      [answer.body.state, answer.body.disabled_at, answer.body.disabled_reason, answer.body.failed],
      ['disabled', now, `HTTP 410 Gone from ${w.receiver.url} at ${now}.`, 1],
    );
    assert.equal(
      (await operatorRequest(w.t, 'POST', `/integrators/${w.integrator.id}/webhook/enable`)).status,
      200,
    );
  });

  it('shows a secret rotation under way; an integrator without a URL is state none', async () => {
    const rotated = await operatorRequest(
      w.t,
      'POST',
      `/integrators/${w.integrator.id}/webhook-secret/rotate`,
    );
    assert.equal(rotated.status, 201);
    const answer = await w.endpoint();
    assert.deepEqual(
      [answer.body.secret_rotated_at, answer.body.previous_secret_expires_at],
      [w.t.clock.now().toISOString(), rotated.body.previous_secret_expires_at],
    );
    const { id } = await w.t.createIntegrator({ name: 'No URL' });
    const none = await w.endpoint(id);
    assert.deepEqual([none.body.webhook_url, none.body.state], [null, 'none']);
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(w.endpoint, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(w.t, {
      method: 'GET',
      url: `/api/operator/integrators/${w.integrator.id}/webhook`,
    });
  });
});
