import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { integrationSchedules } from '../../support/schedule-helpers.ts';
import { lastAudit, scheduleActionSuite } from '../../support/tenant-pages.ts';

describe('POST /api/dashboard/schedules/{schedule_id}/cancel/ (cancelSchedule)', () => {
  const env = scheduleActionSuite();
  let s: ReturnType<typeof env>;
  beforeEach(() => {
    s = env();
  });
  const cancel = (reason: unknown, who = s.d.admin, id?: string) => s.act('cancel', reason, who, id);

  it('403 for developer and support; 400 without a reason or with one over 500 characters', async () => {
    for (const person of [s.d.developer, s.d.support]) {
      assertError(await cancel('Moving out', person), 403, 'forbidden', /schedules\.manage/);
    }
    assert.equal((await cancel(undefined)).status, 400);
    assert.equal((await cancel('x'.repeat(501))).status, 400);
    assert.equal((await s.d.support.get('/tenants/1/')).body.schedules[0].status, 'active');
  });

  it('200: canceled for good with the reason (500 characters at most), shown on the tenant’s page; audited naming the person', async () => {
    const reason = `Moved out early. ${'x'.repeat(483)}`;
    assert.equal(reason.length, 500);
    const answer = await cancel(reason);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [answer.body.status, answer.body.next_due_date, answer.body.reason],
      ['canceled', null, reason],
    );
    const { reason: _reason, ...schedule } = answer.body;
    assert.deepEqual((await integrationSchedules(s.d.t, s.api).list(1)).body.schedules, [schedule]);
    assert.deepEqual((await s.d.support.get('/tenants/1/')).body.schedules, [answer.body]);
    const entry = await lastAudit(s.d.t.db, s.d.integrator.id, 'schedule.cancel');
    assert.deepEqual([entry.actor.email, entry.actor.role], ['admin@platform.example', 'admin']);
    assert.deepEqual(entry.summary, {
      before: { status: 'active', next_due_date: '2026-03-01' },
      after: { status: 'canceled', next_due_date: null, reason },
    });
  });

  it('409 once canceled (as the Integration API answers)', async () => {
    assertError(
      await cancel('Again', s.d.finance),
      409,
      'conflict',
      /Only an active or paused schedule can be canceled; this one is canceled\./,
    );
  });

  it('404 for another platform’s schedule and an unknown one; 403 for the operator’s staff', async () => {
    assertError(await cancel('Mine now', s.d.admin, s.othersId), 404, 'not_found');
    assertError(await cancel('Who?', s.d.admin, 'sch_unknown'), 404, 'not_found');
    assertError(await cancel('Staff', s.operatorStaff), 403, 'forbidden');
    assert.equal((await integrationSchedules(s.d.t, s.otherApi).list(1)).body.schedules[0].status, 'active');
  });

  itRefusesWithoutASession(() => env().d, 'POST', '/schedules/sch_x/cancel/', { reason: 'x' });
});
