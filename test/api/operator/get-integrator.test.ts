import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { startTestApp } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  INTEGRATOR_KEYS,
} from '../../support/operation-tests.ts';

describe('GET /api/operator/integrators/{integrator_id} (getIntegrator)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  const show = (id: string) => operatorRequest(t, 'GET', `/integrators/${id}`);

  it('200: the Integrator’s settings and status, never its token or webhook secret', async () => {
    const created = await operatorRequest(t, 'POST', '/integrators', {
      name: 'Homely',
      allowed_origins: ['https://app.homely.example'],
      fees: { card: { percent: '1.4', fixed: '0.20' } },
    });
    const { server_token, webhook_secret, ...integrator } = created.body;
    const answer = await show(integrator.integrator_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), INTEGRATOR_KEYS);
    assert.deepEqual(answer.body, integrator);
    assert.equal(answer.body.status, 'active');
    const text = JSON.stringify(answer.body);
    assert.ok(!text.includes(server_token) && !text.includes(webhook_secret));
  });

  it('shows a change at once: the status after a suspension', async () => {
    const { id } = await t.createIntegrator({ name: 'Later suspended' });
    t.clock.advance(1000);
    assert.equal((await operatorRequest(t, 'POST', `/integrators/${id}/suspend`)).status, 200);
    const answer = await show(id);
    assert.equal(answer.body.status, 'suspended');
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(show, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    const { id } = await t.createIntegrator();
    await assertOperatorTokenRequired(t, { method: 'GET', url: `/api/operator/integrators/${id}` });
  });
});
