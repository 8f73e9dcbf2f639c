import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  signedInPerson,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('GET /api/dashboard/webhook-endpoint/ (getWebhookEndpoint)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('200 for any role of the platform: the URL, its state and its secret’s overlap', async () => {
    const answer = await d.support.get('/webhook-endpoint/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), [
      'created_at',
      'previous_secret_expires_at',
      'state',
      'updated_at',
      'url',
    ]);
    assert.equal(answer.body.url, null);
    assert.equal(answer.body.state, 'enabled');
  });

  it('403 for the operator’s staff: the page belongs to a platform', async () => {
    const staff = await signedInPerson(d.t, {
      team: null,
      email: 'ops@rentpay.example',
      role: 'operator_admin',
    });
    assertError(await staff.get('/webhook-endpoint/'), 403, 'forbidden', /operator console/);
  });

  itRefusesWithoutASession(() => d, 'GET', '/webhook-endpoint/');
});
