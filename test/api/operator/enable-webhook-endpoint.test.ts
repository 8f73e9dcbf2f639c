import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  startWebhookApp,
} from '../../support/operation-tests.ts';

describe('POST /api/operator/integrators/{integrator_id}/webhook/enable (enableWebhookEndpoint)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());

  const enable = (id = w.integrator.id) => operatorRequest(w.t, 'POST', `/integrators/${id}/webhook/enable`);

  it('200: the endpoint enabled again; new events are delivered, the one that failed only once redelivered', async () => {
    const failed = await w.disableEndpoint();
    const answer = await enable();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [answer.body.state, answer.body.disabled_at, answer.body.disabled_reason, answer.body.failed],
      ['enabled', null, null, 1],
    );
    assert.deepEqual((await w.endpoint()).body, answer.body);
    const received = w.receiver.received.length;
    const fresh = await w.paidEvent();
    await runJobs(w.t);
    assert.deepEqual(w.receiver.ids().slice(received), [fresh], 'not the failed one');
    assert.equal((await w.event(failed)).status, 'failed');
  });

  it('an endpoint that is not disabled stays as it is', async () => {
    const before = (await w.endpoint()).body;
    const answer = await enable();
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, before);
    const { id } = await w.t.createIntegrator({ name: 'No URL' });
    const none = await enable(id);
    assert.deepEqual([none.status, none.body.state, none.body.webhook_url], [200, 'none', null]);
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(enable, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the endpoint stays disabled', async () => {
    await w.disableEndpoint();
    await assertOperatorTokenRequired(w.t, {
      method: 'POST',
      url: `/api/operator/integrators/${w.integrator.id}/webhook/enable`,
    });
    assert.equal((await w.endpoint()).body.state, 'disabled');
  });
});
