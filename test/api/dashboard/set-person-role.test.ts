import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
  teamIdsByRole,
} from '../../support/dashboard-client.ts';

describe('PUT /api/dashboard/team/{user_id}/role/ (setPersonRole)', () => {
  let d: DashboardApp;
  let ids: Record<string, string>;
  before(async () => {
    d = await startDashboardApp();
    ids = await teamIdsByRole(d);
  });
  after(() => d.t.close());

  it('200: support becomes finance and may refund from then on (the role is read per request)', async () => {
    assert.equal((await d.support.get('/me/')).body.permissions.includes('refunds.create'), false);
    const answer = await d.admin.request('PUT', `/team/${ids.support}/role/`, { role: 'finance' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.role, 'finance');
    assert.equal((await d.support.get('/me/')).body.permissions.includes('refunds.create'), true);
  });

  it('409 for the team’s only admin; 404 for an unknown person; 400 for a role of the operator', async () => {
    assertError(
      await d.admin.request('PUT', `/team/${ids.admin}/role/`, { role: 'developer' }),
      409,
      'conflict',
      /only admin/,
    );
    assertError(
      await d.admin.request('PUT', '/team/dus_unknown/role/', { role: 'support' }),
      404,
      'not_found',
    );
    assert.equal(
      (await d.admin.request('PUT', `/team/${ids.developer}/role/`, { role: 'operator_admin' })).status,
      400,
    );
  });

  it('403 for a developer', async () => {
    assertError(
      await d.developer.request('PUT', `/team/${ids.developer}/role/`, { role: 'admin' }),
      403,
      'forbidden',
    );
  });

  itRefusesWithoutASession(() => d, 'PUT', '/team/dus_x/role/', { role: 'support' });
});
