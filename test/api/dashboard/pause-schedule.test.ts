import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { type DashboardPerson, itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { integrationSchedules } from '../../support/schedule-helpers.ts';
import { lastAudit, scheduleActionSuite } from '../../support/tenant-pages.ts';

describe('POST /api/dashboard/schedules/{schedule_id}/pause/ (pauseSchedule)', () => {
  const env = scheduleActionSuite();
  let s: ReturnType<typeof env>;
  beforeEach(() => {
    s = env();
  });
  const pause = (reason: unknown, who?: DashboardPerson, id?: string) => s.act('pause', reason, who, id);

  it('403 for developer and support: their roles do not manage schedules; nothing changes', async () => {
    for (const person of [s.d.developer, s.d.support]) {
      assertError(
        await pause('Asked to', person),
        403,
        'forbidden',
        /does not allow this \(schedules\.manage\)/,
      );
    }
    assert.equal((await s.d.support.get('/tenants/1/')).body.schedules[0].status, 'active');
  });

  it('400 without a reason, with a blank one, or one over 500 characters', async () => {
    assert.equal((await pause(undefined)).status, 400);
    assert.equal((await pause('')).status, 400);
    const blank = await pause('   ');
    assert.deepEqual([blank.status, blank.body], [400, { reason: ['This field may not be blank.'] }]);
    assert.equal((await pause('x'.repeat(501))).status, 400);
    assert.equal(
      (await s.d.finance.post(`/schedules/${s.scheduleId}/pause/`, { reason: 'x', extra: 1 })).status,
      400,
    );
  });

  it('200: paused with the reason, shown on the tenant’s page and the same as the Integration API shows it; audited naming the person', async () => {
    const answer = await pause('  Tenant asked for a month off  ');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'paused');
    assert.equal(answer.body.reason, 'Tenant asked for a month off');
    const { reason, ...schedule } = answer.body;
    const listed = await integrationSchedules(s.d.t, s.api).list(1);
    assert.deepEqual(listed.body.schedules, [schedule]);
    assert.deepEqual((await s.d.support.get('/tenants/1/')).body.schedules, [answer.body]);
    const entry = await lastAudit(s.d.t.db, s.d.integrator.id, 'schedule.pause');
    assert.equal(entry.target_id, s.scheduleId);
    assert.deepEqual([entry.actor.email, entry.actor.role], ['finance@platform.example', 'finance']);
    assert.deepEqual(entry.summary, {
      before: { status: 'active', next_due_date: '2026-03-01' },
      after: { status: 'paused', next_due_date: '2026-03-01', reason: 'Tenant asked for a month off' },
    });
  });

  it('409 when it is not active (as the Integration API answers)', async () => {
    assertError(
      await pause('Again', s.d.admin),
      409,
      'conflict',
      /Only an active schedule can be paused; this one is paused\./,
    );
  });

  it('404 for another platform’s schedule and for an unknown one; 400 for an id that is not one; 403 for the operator’s staff', async () => {
    assertError(await pause('Mine now', s.d.admin, s.othersId), 404, 'not_found');
    assertError(await pause('Who?', s.d.admin, 'sch_unknown'), 404, 'not_found');
    assert.equal((await pause('Bad', s.d.admin, 'nope')).status, 400);
    assertError(await pause('Staff', s.operatorStaff), 403, 'forbidden');
    const theirs = await integrationSchedules(s.d.t, s.otherApi).list(1);
    assert.equal(theirs.body.schedules[0].status, 'active');
  });

  itRefusesWithoutASession(() => env().d, 'POST', '/schedules/sch_x/pause/', { reason: 'x' });
});
