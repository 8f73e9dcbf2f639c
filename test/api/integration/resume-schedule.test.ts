import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, send } from '../../support/api-client.ts';
import { runJobs, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { PAN, startPaymentApp } from '../../support/payment-client.ts';
import {
  integrationSchedules,
  scheduleEvents,
  scheduleOk,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('POST /api/third-party/schedules/{schedule_id}/resume/ (resumeSchedule)', () => {
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

  const tenant = (rentDueDay = 10) =>
    scheduleTenant(t, api, { rent_due_day: rentDueDay }, PAN.visa, () => runJobs(t));
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

  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    assertError(
      await schedules.change('sch-1', 'resume'),
      400,
      'invalid_request',
      /^Invalid params: schedule_id: /,
    );
    assertError(
      await schedules.change('sch_nope', 'resume'),
      404,
      'not_found',
      /^No schedule sch_nope\. List a user's schedules and their ids with GET \/api\/third-party\/schedules\/\?user_id=<your user_id>\.$/,
    );
  });

  it('another integrator’s schedule is 404, as an unknown one, and stays paused', async () => {
    const { ann, schedule, paused } = await pausedSchedule();
    const answer = await integrationSchedules(t, otherApi).change(schedule.schedule_id, 'resume');
    assertError(answer, 404, 'not_found', new RegExp(`^No schedule ${schedule.schedule_id}\\. List`));
    assert.deepEqual((await schedules.list(ann.userId)).body.schedules, [paused]);
  });

  it('401 with an unknown token; the schedule stays paused', async () => {
    const { schedule } = await pausedSchedule();
    const answer = await send(t, {
      method: 'POST',
      url: `/api/third-party/schedules/${schedule.schedule_id}/resume/`,
      headers: tokenHeader(`rp_sandbox_${'x'.repeat(40)}`),
    });
    assertError(answer, 401, 'unauthorized', /^Invalid or expired token\./);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created', 'schedule_paused']);
  });
});
