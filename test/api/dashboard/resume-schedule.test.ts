import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { type DashboardPerson, itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { integrationSchedules } from '../../support/schedule-helpers.ts';
import { lastAudit, scheduleActionSuite } from '../../support/tenant-pages.ts';

describe('POST /api/dashboard/schedules/{schedule_id}/resume/ (resumeSchedule)', () => {
  // The clock starts at 2026-03-01T09:00Z; the tenancy's rent falls due on the 1st of each month.
  const env = scheduleActionSuite();
  let s: ReturnType<typeof env>;
  beforeEach(() => {
    s = env();
  });
  const resume = (reason: unknown, who?: DashboardPerson, id?: string) => s.act('resume', reason, who, id);

  it('409 while it is active (as the Integration API answers)', async () => {
    assertError(
      await resume('Back'),
      409,
      'conflict',
      /Only a paused schedule can be resumed; this one is active\./,
    );
  });

  it('200: active again from the first due date after today; the pause’s reason is cleared; audited with the reason, naming the person', async () => {
    assert.equal(
      (await s.d.admin.post(`/schedules/${s.scheduleId}/pause/`, { reason: 'Holiday' })).status,
      200,
    );
    const answer = await resume('Tenant is back');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [answer.body.status, answer.body.next_due_date, answer.body.reason],
      ['active', '2026-04-01', null],
    );
    const { reason: _reason, ...schedule } = answer.body;
    assert.deepEqual((await integrationSchedules(s.d.t, s.api).list(1)).body.schedules, [schedule]);
    const entry = await lastAudit(s.d.t.db, s.d.integrator.id, 'schedule.resume');
    assert.deepEqual([entry.actor.email, entry.actor.role], ['finance@platform.example', 'finance']);
    assert.deepEqual(entry.summary, {
      before: { status: 'paused', next_due_date: '2026-03-01' },
      after: { status: 'active', next_due_date: '2026-04-01', reason: 'Tenant is back' },
    });
  });

  it('403 for developer and support; 400 without a reason', async () => {
    assert.equal(
      (await s.d.admin.post(`/schedules/${s.scheduleId}/pause/`, { reason: 'Again' })).status,
      200,
    );
    for (const person of [s.d.developer, s.d.support]) {
      assertError(await resume('Back', person), 403, 'forbidden', /schedules\.manage/);
    }
    assert.equal((await resume(undefined)).status, 400);
    assert.equal((await s.d.support.get('/tenants/1/')).body.schedules[0].reason, 'Again', 'still paused');
  });

  it('404 for another platform’s schedule; 403 for the operator’s staff', async () => {
    assert.equal(
      (await s.stranger.post(`/schedules/${s.othersId}/pause/`, { reason: 'Theirs' })).status,
      200,
    );
    assertError(await resume('Mine now', s.d.admin, s.othersId), 404, 'not_found');
    assertError(await resume('Staff', s.operatorStaff), 403, 'forbidden');
    assert.equal((await integrationSchedules(s.d.t, s.otherApi).list(1)).body.schedules[0].status, 'paused');
  });

  itRefusesWithoutASession(() => env().d, 'POST', '/schedules/sch_x/resume/', { reason: 'x' });
});
