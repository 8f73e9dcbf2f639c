import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Api,
  assertAnswer,
  assertError,
  integrationApi,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp } from '../../support/helpers.ts';
import { count, PAN } from '../../support/payment-client.ts';
import {
  integrationSchedules,
  scheduleOk,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

const NOTHING = { charged: 0, failed: 0, waiting: 0 };

describe('POST /api/third-party/sandbox/run-schedules/ (runSchedules)', () => {
  let t: TestApp;
  before(async () => {
    // The clock starts at 2026-03-01T09:00Z.
    t = await startTestApp();
  });
  after(() => t.close());

  /** An integrator of its own for each test: a run charges every schedule of the caller. Card fee 1.45 %. */
  const newApi = async () =>
    integrationApi(
      t,
      await t.createIntegrator({ ...UNLIMITED, fees: { card: { percent: '1.45', fixed: '0.00' } } }),
    );
  const tenant = (api: Api, rentDueDay: number, pan = PAN.visa) =>
    scheduleTenant(t, api, { rent_due_day: rentDueDay }, pan, () => runJobs(t));
  async function run(api: Api, asOf: string) {
    const answer = await integrationSchedules(t, api).run(asOf);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    // A second between runs, so each run's events are newer than the last's.
    t.clock.advance(1000);
    return answer.body;
  }

  it('200 {charged, failed, waiting}: every due date up to as_of is charged once, as a payment of the schedule', async () => {
    const api = await newApi();
    const ann = await tenant(api, 31);
    const schedule = await scheduleOk(ann);
    assert.equal(schedule.next_due_date, '2026-03-31');
    assert.deepEqual(await run(api, '2026-03-30'), NOTHING);
    assert.deepEqual(await run(api, '2026-03-31'), { charged: 1, failed: 0, waiting: 0 });
    assert.deepEqual(await run(api, '2026-03-31'), NOTHING, 'again: nothing more');
    assert.deepEqual(
      await run(api, '2026-05-31'),
      { charged: 2, failed: 0, waiting: 0 },
      'April 30 and May 31',
    );
    const events = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.deepEqual(
      events.map((event) => [event.type, event.data.payment.amount, event.data.payment.status]),
      Array(3).fill(['payment_success', '1217.40', 'succeeded']),
    );
    const listed = await integrationSchedules(t, api).list(ann.userId);
    assert.equal(listed.body.schedules[0].next_due_date, '2026-06-30');
    const paid = (await api.session(ann.sessionId)).body.payments;
    assert.equal(
      paid.filter((p: { schedule_id: string }) => p.schedule_id === schedule.schedule_id).length,
      3,
    );
  });

  it('counts a refused charge as failed and one waiting for the tenant’s authentication as waiting', async () => {
    const api = await newApi();
    const charged = await tenant(api, 5);
    const refused = await tenant(api, 5);
    const authenticates = await tenant(api, 5, PAN.threeDsAlways);
    for (const who of [charged, refused, authenticates]) await scheduleOk(who);
    await t.db.query("UPDATE sandbox_tokens SET behaviour = 'insufficient_funds' WHERE id = $1", [
      refused.cardToken,
    ]);
    assert.deepEqual(await run(api, '2026-03-05'), { charged: 1, failed: 1, waiting: 1 });
  });

  it('runs the caller’s schedules only', async () => {
    const [api, otherApi] = [await newApi(), await newApi()];
    const theirs = await scheduleOk(await tenant(otherApi, 2));
    assert.deepEqual(await run(api, '2026-03-02'), NOTHING);
    assert.deepEqual(await schedulePaymentEvents(t, theirs.schedule_id), []);
    assert.deepEqual(await run(otherApi, '2026-03-02'), { charged: 1, failed: 0, waiting: 0 });
  });

  it('400 for an as_of that is missing or not a real date; nothing is charged', async () => {
    const api = await newApi();
    await scheduleOk(await tenant(api, 3));
    const charges = await count(t, 'sandbox_charges');
    const schedules = integrationSchedules(t, api);
    assertAnswer(await schedules.run('2026-02-30'), 400, {
      as_of: ['Date has wrong format or is not a real date. Use YYYY-MM-DD.'],
    });
    assertAnswer(await schedules.run(20260303), 400, {
      as_of: ['Not a valid string: send the value in quotes.'],
    });
    assertAnswer(await schedules.run(undefined), 400, { as_of: ['This field is required.'] });
    assert.equal(await count(t, 'sandbox_charges'), charges);
    assert.deepEqual(await run(api, '2026-03-03'), { charged: 1, failed: 0, waiting: 0 }, 'still due');
  });

  it('401 without a token; nothing is charged', async () => {
    const api = await newApi();
    const schedule = await scheduleOk(await tenant(api, 4));
    const answer = await send(t, {
      method: 'POST',
      url: '/api/third-party/sandbox/run-schedules/',
      payload: { as_of: '2026-03-04' },
    });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
    assert.deepEqual(await schedulePaymentEvents(t, schedule.schedule_id), []);
  });
});
