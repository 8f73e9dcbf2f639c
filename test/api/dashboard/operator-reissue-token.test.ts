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

describe('POST /api/dashboard/operator/integrators/{integrator_id}/reissue-token/ (operatorReissueToken)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('201: a new token shown once; every older one ends at once; audited naming the person', async () => {
    const other = await c.t.createIntegrator({ name: 'Leaked token' });
    assert.equal((await whoami(c.t, other.token)).status, 200);
    const answer = await c.opsAdmin.post(`/operator/integrators/${other.id}/reissue-token/`);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body), ['server_token']);
    assert.match(answer.body.server_token, /^rp_sandbox_/);
    assertError(await whoami(c.t, other.token), 401, 'unauthorized');
    assert.equal((await whoami(c.t, answer.body.server_token)).status, 200);
    assert.deepEqual(await newestAudit(c.t, other.id), [
      { action: 'server_token.reissue', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
  });

  it('operator_support’s refusal leaves the token working', async () => {
    assertError(
      await c.opsSupport.post(`/operator/integrators/${c.integrator.id}/reissue-token/`),
      403,
      'forbidden',
    );
    assert.equal((await whoami(c.t, c.integrator.token)).status, 200);
  });

  itRefusesOperatorSupport(
    () => c,
    'POST',
    '/operator/integrators/int_x/reissue-token/',
    'credentials.manage',
  );
  itChecksTheId(
    () => c,
    'integrator',
    'POST',
    (id) => `/operator/integrators/${id}/reissue-token/`,
  );
  itRefusesPlatformPeople(() => c, 'POST', '/operator/integrators/int_x/reissue-token/');
  itRefusesWithoutASession(() => c, 'POST', '/operator/integrators/int_x/reissue-token/');
});
