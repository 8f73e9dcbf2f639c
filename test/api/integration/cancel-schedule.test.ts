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

describe('POST /api/third-party/schedules/{schedule_id}/cancel/ (cancelSchedule)', () => {
  let app: ScheduleApp;
  let t: TestApp;
  let schedules: ScheduleApp['schedules'];
  let tenant: ScheduleApp['tenant'];
  before(async () => {
    app = await startScheduleApp();
    ({ t, schedules, tenant } = app);
  });
  after(() => t.close());

  it('200: the Schedule, canceled for good, with schedule_canceled; nothing is charged after', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    t.clock.advance(1000);
    const answer = await schedules.change(schedule.schedule_id, 'cancel');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      ...schedule,
      status: 'canceled',
      next_due_date: null,
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual((await schedules.list(ann.userId)).body, { schedules: [answer.body] });
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), [
      'schedule_created',
      'schedule_canceled',
    ]);
    assert.equal((await schedules.run('2026-06-10')).status, 200);
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), []);
    // The tenancy is free for a new schedule.
    t.clock.advance(1000);
    const next = await scheduleOk(ann);
    assert.equal(next.status, 'active');
  });

  it('a paused schedule can be canceled too', async () => {
    const ann = await tenant();
    const { schedule_id: id } = await scheduleOk(ann);
    t.clock.advance(1000);
    assert.equal((await schedules.change(id, 'pause')).status, 200);
    t.clock.advance(1000);
    const answer = await schedules.change(id, 'cancel');
    assert.deepEqual([answer.status, answer.body.status], [200, 'canceled']);
    assert.deepEqual(await scheduleEvents(t, id), [
      'schedule_created',
      'schedule_paused',
      'schedule_canceled',
    ]);
  });

  it('409 for a schedule canceled already; nothing changes', async () => {
    const ann = await tenant();
    const { schedule_id: id } = await scheduleOk(ann);
    // A second between changes: events of one time are listed in no particular order.
    t.clock.advance(1000);
    const canceled = (await schedules.change(id, 'cancel')).body;
    t.clock.advance(1000);
    assertError(
      await schedules.change(id, 'cancel'),
      409,
      'conflict',
      /^Only an active or paused schedule can be canceled; this one is canceled\.$/,
    );
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [canceled]);
    assert.deepEqual(await scheduleEvents(t, id), ['schedule_created', 'schedule_canceled']);
  });

  itRefusesScheduleChanges(
    'cancel',
    () => app,
    async () => {
      const ann = await tenant();
      return { userId: ann.userId, schedule: await scheduleOk(ann) };
    },
  );
});
