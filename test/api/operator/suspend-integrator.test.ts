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

describe('POST /api/operator/integrators/{integrator_id}/suspend (suspendIntegrator)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  /** An integrator with a tenant logged in: its Integration API and the tenant's Client API. */
  async function withTenant() {
    const integrator = await t.createIntegrator(UNLIMITED);
    const api = integrationApi(t, integrator);
    return { id: integrator.id, api, tenant: await newTenant(t, api) };
  }

  const suspend = (id: string) => operatorRequest(t, 'POST', `/integrators/${id}/suspend`);

  it('200: the Integrator, suspended; its server token and its user session tokens get 403 integrator_suspended', async () => {
    const { id, api, tenant } = await withTenant();
    const before = await shownIntegrator(t, id);
    const answer = await suspend(id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), INTEGRATOR_KEYS);
    assert.deepEqual(answer.body, { ...before, status: 'suspended', updated_at: answer.body.updated_at });
    assert.equal((await shownIntegrator(t, id)).status, 'suspended');
    assertError(await api.session(tenant.sessionId), 403, 'integrator_suspended');
    assertError(await api.login({ email: tenant.email }), 403, 'integrator_suspended');
    assertError(await tenant.client.call('GET', '/session'), 403, 'integrator_suspended');
  });

  it('suspending twice changes nothing; other integrators go on', async () => {
    const { id } = await withTenant();
    const other = await withTenant();
    const first = await suspend(id);
    t.clock.advance(1000);
    const second = await suspend(id);
    assert.equal(second.status, 200);
    assert.equal(second.body.status, 'suspended');
    assert.deepEqual(await shownIntegrator(t, id), first.body);
    assert.equal((await other.tenant.client.call('GET', '/session')).status, 200);
    assert.equal((await other.api.session(other.tenant.sessionId)).status, 200);
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(suspend, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the integrator stays active', async () => {
    const { id, tenant } = await withTenant();
    await assertOperatorTokenRequired(t, { method: 'POST', url: `/api/operator/integrators/${id}/suspend` });
    assert.equal((await shownIntegrator(t, id)).status, 'active');
    assert.equal((await tenant.client.call('GET', '/session')).status, 200);
  });
});
