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

describe('POST /api/dashboard/operator/integrators/{integrator_id}/unsuspend/ (operatorUnsuspendIntegrator)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: active again, and its token works again at once; audited naming the person', async () => {
    const other = await c.t.createIntegrator({ name: 'Recovered platform' });
    assert.equal((await c.opsAdmin.post(`/operator/integrators/${other.id}/suspend/`)).status, 200);
    assertError(await whoami(c.t, other.token), 403, 'integrator_suspended');
    const answer = await c.opsAdmin.post(`/operator/integrators/${other.id}/unsuspend/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'active');
    assert.equal((await whoami(c.t, other.token)).status, 200);
    assert.deepEqual(await newestAudit(c.t, other.id), [
      { action: 'integrator.unsuspend', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
    // An active integrator: nothing changes, nothing more is audited.
    const again = await c.opsAdmin.post(`/operator/integrators/${other.id}/unsuspend/`);
    assert.deepEqual(again.body, answer.body);
    assert.equal((await newestAudit(c.t, other.id))[0]!.action, 'integrator.unsuspend');
  });

  it('operator_support cannot lift a suspension: the token stays refused', async () => {
    const other = await c.t.createIntegrator({ name: 'Still suspended' });
    await c.opsAdmin.post(`/operator/integrators/${other.id}/suspend/`);
    assertError(await c.opsSupport.post(`/operator/integrators/${other.id}/unsuspend/`), 403, 'forbidden');
    assertError(await whoami(c.t, other.token), 403, 'integrator_suspended');
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/integrators/int_x/unsuspend/', 'integrators.manage');
  itChecksTheId(
    () => c,
    'integrator',
    'POST',
    (id) => `/operator/integrators/${id}/unsuspend/`,
  );
  itRefusesPlatformPeople(() => c, 'POST', '/operator/integrators/int_x/unsuspend/');
  itRefusesWithoutASession(() => c, 'POST', '/operator/integrators/int_x/unsuspend/');
});
