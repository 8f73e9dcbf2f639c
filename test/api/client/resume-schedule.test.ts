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
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('POST /api/client/schedules/{schedule_id}/resume (resumeSchedule)', async () => {
  // The clock starts at 2026-03-01T09:00Z.
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  /** A tenant with a paused schedule; the tenant and the Schedule. */
  async function paused(tenancy: Record<string, unknown> = {}) {
    const { tenant: ann, schedule } = await scheduledTenant(t, api, tenancy);
    t.clock.advance(1000);
    const answer = await clientChange(ann, schedule.schedule_id, 'pause');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return { ann, schedule: answer.body };
  }

  it('200: active again from the next due date; the dates passed while paused stay skipped; schedule_resumed', async () => {
    const { ann, schedule } = await paused({ rent_due_day: 10 });
    const schedules = integrationSchedules(t, api);
    assert.deepEqual((await schedules.run('2026-04-10')).body, { charged: 0, failed: 0, waiting: 0 });
    t.clock.advance(1000);
    const answer = await clientChange(ann, schedule.schedule_id, 'resume');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      ...schedule,
      status: 'active',
      next_due_date: '2026-05-10',
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual(await clientSchedules(ann), [answer.body]);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), [
      'schedule_created',
      'schedule_paused',
      'schedule_resumed',
    ]);
    assert.deepEqual((await schedules.run('2026-05-10')).body, { charged: 1, failed: 0, waiting: 0 });
  });

  it('409 for a schedule that is not paused (active, canceled), or whose tenancy is no longer active', async () => {
    const { ann, schedule } = await paused();
    const id = schedule.schedule_id;
    assert.equal((await clientChange(ann, id, 'resume')).status, 200);
    assertError(
      await clientChange(ann, id, 'resume'),
      409,
      'conflict',
      /^Only a paused schedule can be resumed; this one is active\.$/,
    );
    assert.equal((await clientChange(ann, id, 'cancel')).status, 200);
    assertError(await clientChange(ann, id, 'resume'), 409, 'conflict', /this one is canceled\./);

    const other = await paused();
    await t.db.query('UPDATE tenancies SET is_active = false WHERE payment_reference = $1', [
      other.ann.reference,
    ]);
    assertError(
      await clientChange(other.ann, other.schedule.schedule_id, 'resume'),
      409,
      'conflict',
      /not active/,
    );
    assert.deepEqual(await clientSchedules(other.ann), [other.schedule]);
  });

  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    const ann = await scheduleTenant(t, api);
    await assertIdChecked(
      (id) => clientChange(ann, id, 'resume'),
      'schedule_id',
      'sch_nope',
      /^No schedule sch_nope\.$/,
    );
  });

  it('another tenant’s schedule, of this or another integrator, is 404 and stays paused', async () => {
    const { ann, schedule } = await paused();
    await assertOthersCannotChange(t, [api, otherApi], ann, schedule, 'resume');
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { schedule } = await paused();
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: `/api/client/schedules/${schedule.schedule_id}/resume`,
    });
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created', 'schedule_paused']);
  });
});
