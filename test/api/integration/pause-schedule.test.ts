import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, send } from '../../support/api-client.ts';
import { runJobs, type TestApp } from '../../support/helpers.ts';
import { PAN, startPaymentApp } from '../../support/payment-client.ts';
import {
  integrationSchedules,
  scheduleEvents,
  scheduleOk,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

const NOT_FOUND =
  /^No schedule sch_nope\. List a user's schedules and their ids with GET \/api\/third-party\/schedules\/\?user_id=<your user_id>\.$/;

describe('POST /api/third-party/schedules/{schedule_id}/pause/ (pauseSchedule)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  let schedules: ReturnType<typeof integrationSchedules>;
  before(async () => {
    // The clock starts at 2026-03-01T09:00Z.
    ({ t, api, otherApi } = await startPaymentApp());
    schedules = integrationSchedules(t, api);
  });
  after(() => t.close());

  const tenant = () => scheduleTenant(t, api, { rent_due_day: 10 }, PAN.visa, () => runJobs(t));

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

  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    assertError(
      await schedules.change('nope', 'pause'),
      400,
      'invalid_request',
      /^Invalid params: schedule_id: Enter a schedule id: "sch_" followed by letters and digits\.$/,
    );
    assertError(await schedules.change('sch_nope', 'pause'), 404, 'not_found', NOT_FOUND);
  });

  it('another integrator’s schedule is 404, as an unknown one, and stays active', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    const answer = await integrationSchedules(t, otherApi).change(schedule.schedule_id, 'pause');
    assertError(answer, 404, 'not_found', new RegExp(`^No schedule ${schedule.schedule_id}\\. List`));
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [schedule]);
  });

  it('401 without a token; the schedule stays active', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    const answer = await send(t, {
      method: 'POST',
      url: `/api/third-party/schedules/${schedule.schedule_id}/pause/`,
    });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created']);
  });
});
