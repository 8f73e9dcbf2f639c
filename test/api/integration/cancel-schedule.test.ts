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

describe('POST /api/third-party/schedules/{schedule_id}/cancel/ (cancelSchedule)', () => {
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

  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    assertError(
      await schedules.change('nope', 'cancel'),
      400,
      'invalid_request',
      /^Invalid params: schedule_id: /,
    );
    assertError(
      await schedules.change('sch_nope', 'cancel'),
      404,
      'not_found',
      /^No schedule sch_nope\. List a user's schedules and their ids with GET \/api\/third-party\/schedules\/\?user_id=<your user_id>\.$/,
    );
  });

  it('another integrator’s schedule is 404, as an unknown one, and stays active', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    const answer = await integrationSchedules(t, otherApi).change(schedule.schedule_id, 'cancel');
    assertError(answer, 404, 'not_found', new RegExp(`^No schedule ${schedule.schedule_id}\\. List`));
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [schedule]);
  });

  it('401 without a token; the schedule stays active', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    const answer = await send(t, {
      method: 'POST',
      url: `/api/third-party/schedules/${schedule.schedule_id}/cancel/`,
    });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [schedule]);
  });
});
