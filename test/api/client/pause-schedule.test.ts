import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  assertClientTokenRequired,
  assertIdChecked,
  assertOthersCannotChange,
  clientSchedules,
  scheduledTenant,
} from '../../support/operation-tests.ts';
import { startPaymentApp } from '../../support/payment-client.ts';
import {
  clientChange,
  integrationSchedules,
  scheduleEvents,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('POST /api/client/schedules/{schedule_id}/pause (pauseSchedule)', async () => {
  // The clock starts at 2026-03-01T09:00Z.
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: the Schedule, paused, with schedule_paused; a due date passing meanwhile is not charged', async () => {
    const { tenant: ann, schedule } = await scheduledTenant(t, api, { rent_due_day: 10 });
    t.clock.advance(1000);
    const answer = await clientChange(ann, schedule.schedule_id, 'pause');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { ...schedule, status: 'paused', updated_at: t.clock.now().toISOString() });
    assert.deepEqual(await clientSchedules(ann), [answer.body]);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created', 'schedule_paused']);
    const run = await integrationSchedules(t, api).run('2026-03-10');
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), [], 'March 10 was skipped');
  });

  it('409 for a schedule that is not active (paused, canceled); it stays as it was', async () => {
    const { tenant: ann, schedule } = await scheduledTenant(t, api);
    const id = schedule.schedule_id;
    const paused = (await clientChange(ann, id, 'pause')).body;
    assertError(
      await clientChange(ann, id, 'pause'),
      409,
      'conflict',
      /^Only an active schedule can be paused; this one is paused\.$/,
    );
    assert.deepEqual(await clientSchedules(ann), [paused]);
    assert.equal((await clientChange(ann, id, 'cancel')).status, 200);
    assertError(await clientChange(ann, id, 'pause'), 409, 'conflict', /this one is canceled\./);
  });

  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    const ann = await scheduleTenant(t, api);
    await assertIdChecked(
      (id) => clientChange(ann, id, 'pause'),
      'schedule_id',
      'sch_nope',
      /^No schedule sch_nope\.$/,
    );
  });

  it('another tenant’s schedule, of this or another integrator, is 404 and stays active', async () => {
    const { tenant, schedule } = await scheduledTenant(t, api);
    await assertOthersCannotChange(t, [api, otherApi], tenant, schedule, 'pause');
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { schedule_id: id } = (await scheduledTenant(t, api)).schedule;
    await assertClientTokenRequired(t, api, { method: 'POST', url: `/api/client/schedules/${id}/pause` });
    assert.deepEqual(await scheduleEvents(t, id), ['schedule_created'], 'not paused');
  });
});
