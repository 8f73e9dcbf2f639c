import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import type { TestApp } from '../../support/helpers.ts';
import {
  itRefusesScheduleChanges,
  type ScheduleApp,
  scheduleEvents,
  scheduleOk,
  schedulePaymentEvents,
  startScheduleApp,
} from '../../support/schedule-helpers.ts';

describe('POST /api/third-party/schedules/{schedule_id}/resume/ (resumeSchedule)', () => {
  let app: ScheduleApp;
  let t: TestApp;
  let schedules: ScheduleApp['schedules'];
  let tenant: ScheduleApp['tenant'];
  before(async () => {
    app = await startScheduleApp();
    ({ t, schedules, tenant } = app);
  });
  after(() => t.close());

  /** A schedule of a new tenant, paused a second after it was set up. */
  async function pausedSchedule(rentDueDay = 10) {
    const ann = await tenant(rentDueDay);
    const schedule = await scheduleOk(ann);
    t.clock.advance(1000);
    const paused = await schedules.change(schedule.schedule_id, 'pause');
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    t.clock.advance(1000);
    return { ann, schedule, paused: paused.body };
  }

  it('200: active again from the first due date after today, with schedule_resumed; that date is charged', async () => {
    // Due on the 1st: today's due date passed while paused, so it is skipped.
    const { ann, schedule, paused } = await pausedSchedule(1);
    assert.equal(schedule.next_due_date, '2026-03-01');
    const answer = await schedules.change(schedule.schedule_id, 'resume');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      ...paused,
      status: 'active',
      next_due_date: '2026-04-01',
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual((await schedules.list(ann.userId)).body, { schedules: [answer.body] });
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), [
      'schedule_created',
      'schedule_paused',
      'schedule_resumed',
    ]);
    assert.equal((await schedules.run('2026-03-01')).status, 200);
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), [], 'today is skipped');
    assert.equal((await schedules.run('2026-04-01')).status, 200);
    const charged = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.deepEqual(
      charged.map((event) => [event.type, event.data.payment.amount]),
      [['payment_success', '1217.40']],
    );
  });

  it('due dates the test clock ran past while paused stay skipped', async () => {
    const { schedule } = await pausedSchedule(10);
    assert.equal((await schedules.run('2026-04-10')).status, 200);
    const answer = await schedules.change(schedule.schedule_id, 'resume');
    assert.equal(answer.body.next_due_date, '2026-05-10', JSON.stringify(answer.body));
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), []);
  });

  it('409 for a schedule that is not paused (active, canceled); it stays as it was', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    assertError(
      await schedules.change(schedule.schedule_id, 'resume'),
      409,
      'conflict',
      /^Only a paused schedule can be resumed; this one is active\.$/,
    );
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [schedule]);
    t.clock.advance(1000);
    const canceled = (await schedules.change(schedule.schedule_id, 'cancel')).body;
    assertError(
      await schedules.change(schedule.schedule_id, 'resume'),
      409,
      'conflict',
      /this one is canceled\.$/,
    );
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [canceled]);
  });

  itRefusesScheduleChanges(
    'resume',
    () => app,
    async () => {
      const { ann, schedule } = await pausedSchedule();
      return { userId: ann.userId, schedule };
    },
  );
});
