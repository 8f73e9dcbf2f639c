import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, integrationApi, operatorRequest, UNLIMITED } from '../../support/api-client.ts';
import { startTestApp } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  INTEGRATOR_KEYS,
  shownIntegrator,
} from '../../support/operation-tests.ts';
import { newTenant } from '../../support/payment-client.ts';

describe('POST /api/operator/integrators/{integrator_id}/unsuspend (unsuspendIntegrator)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  const unsuspend = (id: string) => operatorRequest(t, 'POST', `/integrators/${id}/unsuspend`);

  /** A suspended integrator with a tenant logged in before the suspension. */
  async function suspended() {
    const integrator = await t.createIntegrator(UNLIMITED);
    const api = integrationApi(t, integrator);
    const tenant = await newTenant(t, api);
    const answer = await operatorRequest(t, 'POST', `/integrators/${integrator.id}/suspend`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return { id: integrator.id, api, tenant };
  }

  it('200: the Integrator, active again; its valid tokens work again', async () => {
    const { id, api, tenant } = await suspended();
    assertError(await tenant.client.call('GET', '/session'), 403, 'integrator_suspended');
    const answer = await unsuspend(id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), INTEGRATOR_KEYS);
    assert.equal(answer.body.status, 'active');
    assert.deepEqual(await shownIntegrator(t, id), answer.body);
    assert.equal((await api.session(tenant.sessionId)).status, 200);
    assert.equal((await tenant.client.call('GET', '/session')).status, 200);
  });

  it('an active integrator stays as it is', async () => {
    const { id } = await t.createIntegrator();
    const before = await shownIntegrator(t, id);
    t.clock.advance(1000);
    const answer = await unsuspend(id);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, before);
    assert.deepEqual(await shownIntegrator(t, id), before);
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(unsuspend, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the integrator stays suspended', async () => {
    const { id, tenant } = await suspended();
    await assertOperatorTokenRequired(t, {
      method: 'POST',
      url: `/api/operator/integrators/${id}/unsuspend`,
    });
    assert.equal((await shownIntegrator(t, id)).status, 'suspended');
    assertError(await tenant.client.call('GET', '/session'), 403, 'integrator_suspended');
  });
});
