import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { startTestApp } from '../../support/helpers.ts';
import {
  assertOperatorTokenRequired,
  INTEGRATOR_KEYS,
  shownIntegrator,
} from '../../support/operation-tests.ts';

describe('GET /api/operator/integrators (listIntegrators)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  const ids = async () =>
    (await operatorRequest(t, 'GET', '/integrators')).body.data.map(
      (integrator: { integrator_id: string }) => integrator.integrator_id,
    );

  it('200: every integrator, oldest first, each as GET shows it (never a token or webhook secret)', async () => {
    const before = await ids();
    const first = await operatorRequest(t, 'POST', '/integrators', { name: 'First' });
    t.clock.advance(1000);
    const second = await operatorRequest(t, 'POST', '/integrators', { name: 'Second', fees: {} });
    const answer = await operatorRequest(t, 'GET', '/integrators');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body), ['data']);
    assert.deepEqual(
      answer.body.data.map((i: { integrator_id: string }) => i.integrator_id),
      [...before, first.body.integrator_id, second.body.integrator_id],
    );
    for (const integrator of answer.body.data) {
      assert.deepEqual(Object.keys(integrator).sort(), INTEGRATOR_KEYS);
      assert.deepEqual(integrator, await shownIntegrator(t, integrator.integrator_id));
    }
    const text = JSON.stringify(answer.body);
    for (const created of [first, second]) {
      assert.ok(!text.includes(created.body.server_token), 'no server token');
      assert.ok(!text.includes(created.body.webhook_secret), 'no webhook secret');
    }
  });

  it('shows a change at once: a suspended integrator is listed suspended', async () => {
    const { id } = await t.createIntegrator({ name: 'Before' });
    t.clock.advance(1000);
    await operatorRequest(t, 'POST', `/integrators/${id}/suspend`);
    const listed = (await operatorRequest(t, 'GET', '/integrators')).body.data.find(
      (integrator: { integrator_id: string }) => integrator.integrator_id === id,
    );
    assert.deepEqual([listed.name, listed.status], ['Before', 'suspended']);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(t, { method: 'GET', url: '/api/operator/integrators' });
  });
});
