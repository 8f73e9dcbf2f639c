import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { whoami } from '../../support/operation-tests.ts';
import {
  type ConsoleApp,
  itRefusesOperatorSupport,
  itRefusesPlatformPeople,
  newestAudit,
  startConsoleApp,
} from '../../support/operator-console.ts';
import { count } from '../../support/payment-client.ts';

describe('POST /api/dashboard/operator/integrators/ (operatorCreateIntegrator)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('201: the integrator with its server token and webhook secret, shown once; audited naming the person', async () => {
    const answer = await c.opsAdmin.post('/operator/integrators/', {
      name: 'Acme Lettings',
      allowed_origins: ['https://acme.example'],
      fees: { card: { percent: '1.45', fixed: '0.20' } },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const { integrator_id, server_token, webhook_secret } = answer.body;
    assert.match(integrator_id, /^int_/);
    assert.match(server_token, /^rp_sandbox_/);
    assert.match(webhook_secret, /^whsec_/);
    assert.equal(answer.body.status, 'active');
    assert.deepEqual(answer.body.fees, { card: { percent: '1.45', fixed: '0.20' } });
    // The token works on the Integration API at once.
    const me = await whoami(c.t, server_token);
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.deepEqual(await newestAudit(c.t, integrator_id), [
      { action: 'integrator.create', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
    // Shown once: the integrator as listed has neither.
    const listed = await c.opsAdmin.get('/operator/integrators/');
    const row = listed.body.data.find((i: { integrator_id: string }) => i.integrator_id === integrator_id);
    assert.equal(row.name, 'Acme Lettings');
    assert.equal('server_token' in row || 'webhook_secret' in row, false);
  });

  it('400 with field errors for what the Operator API refuses: no name, a bad fee, a private webhook host', async () => {
    const integrators = await count(c.t, 'integrators');
    const noName = await c.opsAdmin.post('/operator/integrators/', {});
    assert.equal(noName.status, 400);
    assert.ok('name' in noName.body, JSON.stringify(noName.body));
    const badFee = await c.opsAdmin.post('/operator/integrators/', {
      name: 'X',
      fees: { card: { percent: '101', fixed: '0.00' } },
    });
    assert.equal(badFee.status, 400);
    assert.deepEqual(badFee.body, { 'fees.card.percent': ['Enter a percentage from 0 to 100.'] });
    const privateHost = await c.opsAdmin.post('/operator/integrators/', {
      name: 'X',
      webhook_url: 'http://127.0.0.1:9/hooks',
    });
    assert.equal(privateHost.status, 400);
    assert.match(privateHost.body.webhook_url[0], /private or loopback/);
    assert.equal(await count(c.t, 'integrators'), integrators);
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/integrators/', 'integrators.manage', { name: 'X' });
  itRefusesPlatformPeople(() => c, 'POST', '/operator/integrators/', { name: 'X' });
  itRefusesWithoutASession(() => c, 'POST', '/operator/integrators/', { name: 'X' });
});
