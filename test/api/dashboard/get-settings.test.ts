import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { patchIntegrator } from '../../support/operation-tests.ts';
import { startTenantPages, type TenantPages } from '../../support/tenant-pages.ts';

describe('GET /api/dashboard/settings/ (getSettings)', () => {
  let s: TenantPages;
  before(async () => {
    s = await startTenantPages();
    const set = await patchIntegrator(s.d.t, s.d.integrator.id, {
      fees: { card: { percent: '1.45', fixed: '0.20' } },
      reminder_days_before: 3,
      allowed_origins: ['https://app.platform.example'],
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
  });
  after(() => s.d.t.close());

  it('200: fees, rent reminders and allowed origins, with the environment and business lets', async () => {
    const answer = await s.d.admin.get('/settings/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      fees: { card: { percent: '1.45', fixed: '0.20' } },
      reminder_days_before: 3,
      allowed_origins: ['https://app.platform.example'],
      environment: 'sandbox',
      business_lets: false,
    });
  });

  it('403 for developer, finance and support (settings.manage) and for the operator’s staff', async () => {
    for (const person of [s.d.developer, s.d.finance, s.d.support]) {
      assertError(
        await person.get('/settings/'),
        403,
        'forbidden',
        /does not allow this \(settings\.manage\)/,
      );
    }
    assertError(await s.operatorStaff.get('/settings/'), 403, 'forbidden', /platform’s team/);
  });

  it('another platform’s admin sees their own settings', async () => {
    const theirs = await s.stranger.get('/settings/');
    assert.equal(theirs.status, 200);
    assert.deepEqual(
      [theirs.body.fees, theirs.body.reminder_days_before, theirs.body.allowed_origins],
      [{}, null, []],
    );
  });

  itRefusesWithoutASession(() => s.d, 'GET', '/settings/');
});
