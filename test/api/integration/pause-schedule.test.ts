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

describe('POST /api/third-party/schedules/{schedule_id}/pause/ (pauseSchedule)', () => {
  let app: ScheduleApp;
  let t: TestApp;
  let schedules: ScheduleApp['schedules'];
  let tenant: ScheduleApp['tenant'];
  before(async () => {
    app = await startScheduleApp();
    ({ t, schedules, tenant } = app);
  });
  after(() => t.close());

  it('200: the Schedule, paused, with schedule_paused; a due date passing meanwhile is skipped', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    t.clock.advance(1000);
    const answer = await schedules.change(schedule.schedule_id, 'pause');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { ...schedule, status: 'paused', updated_at: t.clock.now().toISOString() });
    assert.deepEqual((await schedules.list(ann.userId)).body, { schedules: [answer.body] });
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created', 'schedule_paused']);
    const [event] = await t.db.query<{ data: { schedule: unknown } }>(
      "SELECT data FROM events WHERE type = 'schedule_paused' AND data->'schedule'->>'schedule_id' = $1",
      [schedule.schedule_id],
    );
    assert.deepEqual(event?.data.schedule, answer.body, 'the webhook carries the Schedule as answered');

    assert.equal((await schedules.run('2026-03-10')).status, 200);
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), [], 'March 10 is not charged');
    assert.equal((await schedules.list(ann.userId)).body.schedules[0].next_due_date, '2026-04-10');
  });

  it('409 for a schedule that is not active; it stays as it was', async () => {
    const ann = await tenant();
    const { schedule_id: id } = await scheduleOk(ann);
    // A second between changes: events of one time are listed in no particular order.
    t.clock.advance(1000);
    const paused = (await schedules.change(id, 'pause')).body;
    assertError(
      await schedules.change(id, 'pause'),
      409,
      'conflict',
      /^Only an active schedule can be paused; this one is paused\.$/,
    );
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [paused]);
    t.clock.advance(1000);
    assert.equal((await schedules.change(id, 'cancel')).status, 200);
    assertError(await schedules.change(id, 'pause'), 409, 'conflict', /this one is canceled\.$/);
    assert.deepEqual(await scheduleEvents(t, id), [
      'schedule_created',
      'schedule_paused',
      'schedule_canceled',
    ]);
  });

  itRefusesScheduleChanges(
    'pause',
    () => app,
    async () => {
      const ann = await tenant();
      return { userId: ann.userId, schedule: await scheduleOk(ann) };
    },
  );
});
