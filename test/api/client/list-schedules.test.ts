import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  assertClientTokenRequired,
  clientSchedules,
  patchIntegrator,
  scheduledTenant,
} from '../../support/operation-tests.ts';
import { newTenant, startPaymentApp } from '../../support/payment-client.ts';
import { clientChange, SCHEDULE_KEYS, scheduleOk, scheduleTenant } from '../../support/schedule-helpers.ts';

describe('GET /api/client/schedules (listSchedules)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: the user’s schedules, newest first, canceled ones included, from any session of theirs', async () => {
    const ann = await scheduleTenant(t, api);
    assert.deepEqual(await clientSchedules(ann), []);
    const first = await scheduleOk(ann);
    t.clock.advance(60_000);
    const canceled = (await clientChange(ann, first.schedule_id, 'cancel')).body;
    t.clock.advance(60_000);
    const second = await scheduleOk(ann);
    const answer = await ann.client.call('GET', '/schedules');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body.schedules[0]).sort(), SCHEDULE_KEYS);
    assert.deepEqual(answer.body, { schedules: [second, canceled] });
  });

  it('still lists (and the tenant can still pause) while recurring payments are turned off', async () => {
    const { tenant: ann, schedule } = await scheduledTenant(t, api);
    const off = await patchIntegrator(t, api.integratorId, { features: { recurring: false } });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    try {
      assert.deepEqual(await clientSchedules(ann), [schedule]);
      assert.equal((await clientChange(ann, schedule.schedule_id, 'pause')).status, 200);
    } finally {
      await patchIntegrator(t, api.integratorId, { features: { recurring: true } });
    }
  });

  it('never lists another tenant’s schedules, of this or another integrator', async () => {
    await scheduledTenant(t, api);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      assert.deepEqual(await clientSchedules(stranger), []);
    }
    const bob = await scheduledTenant(t, otherApi);
    assert.deepEqual(await clientSchedules(bob.tenant), [bob.schedule]);
  });

  it('401 without a token, and once the token has lapsed', async () => {
    await assertClientTokenRequired(t, api, { method: 'GET', url: '/api/client/schedules' });
  });
});
