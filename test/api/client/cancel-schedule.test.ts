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
  createSchedule,
  integrationSchedules,
  scheduleEvents,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('POST /api/client/schedules/{schedule_id}/cancel (cancelSchedule)', async () => {
  // The clock starts at 2026-03-01T09:00Z.
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: the Schedule, canceled for good (no next due date), with schedule_canceled; it never charges again', async () => {
    const { tenant: ann, schedule } = await scheduledTenant(t, api, { rent_due_day: 12 });
    t.clock.advance(1000);
    const answer = await clientChange(ann, schedule.schedule_id, 'cancel');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      ...schedule,
      status: 'canceled',
      next_due_date: null,
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual(await clientSchedules(ann), [answer.body]);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), [
      'schedule_created',
      'schedule_canceled',
    ]);
    assert.equal((await integrationSchedules(t, api).run('2026-05-12')).status, 200);
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), []);
    // The tenancy can take a new schedule.
    assert.equal((await createSchedule(ann)).status, 201);
  });

  it('a paused schedule can be canceled too; a canceled one answers 409 and stays canceled', async () => {
    const { tenant: ann, schedule } = await scheduledTenant(t, api);
    const id = schedule.schedule_id;
    assert.equal((await clientChange(ann, id, 'pause')).status, 200);
    const canceled = await clientChange(ann, id, 'cancel');
    assert.equal(canceled.body.status, 'canceled');
    assertError(
      await clientChange(ann, id, 'cancel'),
      409,
      'conflict',
      /^Only an active or paused schedule can be canceled; this one is canceled\.$/,
    );
    assert.deepEqual(await clientSchedules(ann), [canceled.body]);
  });

  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    const ann = await scheduleTenant(t, api);
    await assertIdChecked(
      (id) => clientChange(ann, id, 'cancel'),
      'schedule_id',
      'sch_nope',
      /^No schedule sch_nope\.$/,
    );
  });

  it('another tenant’s schedule, of this or another integrator, is 404 and stays active', async () => {
    const { tenant, schedule } = await scheduledTenant(t, api);
    await assertOthersCannotChange(t, [api, otherApi], tenant, schedule, 'cancel');
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { schedule_id: id } = (await scheduledTenant(t, api)).schedule;
    await assertClientTokenRequired(t, api, { method: 'POST', url: `/api/client/schedules/${id}/cancel` });
    assert.deepEqual(await scheduleEvents(t, id), ['schedule_created'], 'not canceled');
  });
});
