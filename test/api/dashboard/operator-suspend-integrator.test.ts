import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { whoami } from '../../support/operation-tests.ts';
import {
  type ConsoleApp,
  itChecksTheId,
  itRefusesOperatorSupport,
  itRefusesPlatformPeople,
  newestAudit,
  startConsoleApp,
} from '../../support/operator-console.ts';

describe('POST /api/dashboard/operator/integrators/{integrator_id}/suspend/ (operatorSuspendIntegrator)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: suspended, and its token stops working on the Integration API at once; audited naming the person', async () => {
    const other = await c.t.createIntegrator({ name: 'Leaky platform' });
    // The token is answered from the node's cache until it changes: used once, so it is cached.
    assert.equal((await whoami(c.t, other.token)).status, 200);
    const answer = await c.opsAdmin.post(`/operator/integrators/${other.id}/suspend/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.integrator_id, other.id);
    assert.equal(answer.body.status, 'suspended');
    assertError(await whoami(c.t, other.token), 403, 'integrator_suspended');
    assert.deepEqual(await newestAudit(c.t, other.id), [
      { action: 'integrator.suspend', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
    // Again: nothing changes, nothing more is audited.
    const again = await c.opsAdmin.post(`/operator/integrators/${other.id}/suspend/`);
    assert.deepEqual(again.body, answer.body);
    assert.deepEqual(
      (await newestAudit(c.t, other.id, 2)).map((entry) => entry.action),
      ['integrator.suspend', 'integrator.create'],
    );
    // The platform's own token is untouched.
    assert.equal((await whoami(c.t, c.integrator.token)).status, 200);
  });

  it('neither operator_support nor the platform’s own admin can suspend it (403); its token keeps working', async () => {
    const path = `/operator/integrators/${c.integrator.id}/suspend/`;
    assertError(await c.opsSupport.post(path), 403, 'forbidden', /integrators\.manage/);
    assertError(await c.admin.post(path), 403, 'forbidden', /operator console/);
    assert.equal((await whoami(c.t, c.integrator.token)).status, 200);
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/integrators/int_x/suspend/', 'integrators.manage');
  itChecksTheId(
    () => c,
    'integrator',
    'POST',
    (id) => `/operator/integrators/${id}/suspend/`,
  );
  itRefusesPlatformPeople(() => c, 'POST', '/operator/integrators/int_x/suspend/');
  itRefusesWithoutASession(() => c, 'POST', '/operator/integrators/int_x/suspend/');
});
