import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  signedInPerson,
  startDashboardApp,
} from '../../support/dashboard-client.ts';
import { tokenHeader } from '../../support/helpers.ts';

describe('GET /api/dashboard/audit-log/ (listAuditLog)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('200 for an admin: changes from every surface (people and the server token), newest first, with paging', async () => {
    await d.developer.post('/webhook-endpoint/rotate-secret/');
    const byToken = await send(d.t, {
      method: 'POST',
      url: '/api/third-party/webhook-endpoint/rotate-secret/',
      headers: tokenHeader(d.integrator.token),
    });
    assert.equal(byToken.status, 201);
    const page = await d.admin.get('/audit-log/?limit=2');
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual(
      page.body.data.map((e: { action: string; actor: { type: string } }) => [e.action, e.actor.type]),
      [
        ['webhook_secret.rotate', 'server_token'],
        ['webhook_secret.rotate', 'dashboard_user'],
      ],
    );
    assert.equal(page.body.has_more, true);
    const next = await d.admin.get(
      `/audit-log/?limit=100&starting_after=${page.body.data[1].audit_entry_id}`,
    );
    assert.ok(next.body.data.some((e: { action: string }) => e.action === 'dashboard_user.set_up'));
  });

  it('operator staff read the operator’s own log', async () => {
    const staff = await signedInPerson(d.t, {
      team: null,
      email: 'ops@rentpay.example',
      role: 'operator_support',
    });
    const answer = await staff.get('/audit-log/');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.data.every((e: { actor: { type: string } }) => e.actor.type !== 'server_token'));
    assert.ok(answer.body.data.some((e: { action: string }) => e.action === 'dashboard_user.set_up'));
  });

  it('403 for developer, finance and support', async () => {
    for (const person of [d.developer, d.finance, d.support]) {
      assertError(await person.get('/audit-log/'), 403, 'forbidden', /audit\.read/);
    }
  });

  itRefusesWithoutASession(() => d, 'GET', '/audit-log/');
});
