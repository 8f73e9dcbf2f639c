import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
  teamIdsByRole,
} from '../../support/dashboard-client.ts';

describe('DELETE /api/dashboard/team/{user_id}/ (removePerson)', () => {
  let d: DashboardApp;
  let ids: Record<string, string>;
  before(async () => {
    d = await startDashboardApp();
    ids = await teamIdsByRole(d);
  });
  after(() => d.t.close());

  it('200: the person is removed and signed out at once; audited', async () => {
    const answer = await d.admin.request('DELETE', `/team/${ids.finance}/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'removed');
    assertError(await d.finance.get('/me/'), 401, 'session_expired');
    const log = await d.admin.get('/audit-log/?limit=1');
    assert.equal(log.body.data[0].action, 'team.remove');
  });

  it('409 for the team’s only admin; 404 for someone removed already; 403 for support', async () => {
    assertError(await d.admin.request('DELETE', `/team/${ids.admin}/`), 409, 'conflict', /only admin/);
    assertError(await d.admin.request('DELETE', `/team/${ids.finance}/`), 404, 'not_found');
    assertError(await d.support.request('DELETE', `/team/${ids.developer}/`), 403, 'forbidden');
  });

  itRefusesWithoutASession(() => d, 'DELETE', '/team/dus_x/');
});
