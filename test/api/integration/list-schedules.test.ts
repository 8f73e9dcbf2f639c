import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, send } from '../../support/api-client.ts';
import { runJobs, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { PAN, startPaymentApp } from '../../support/payment-client.ts';
import {
  clientChange,
  integrationSchedules,
  SCHEDULE_KEYS,
  scheduleOk,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('GET /api/third-party/schedules/ (listSchedules)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    // The clock starts at 2026-03-01T09:00Z.
    ({ t, api, otherApi } = await startPaymentApp());
  });
  after(() => t.close());

  const tenant = (target = api) =>
    scheduleTenant(t, target, { rent_due_day: 10 }, PAN.visa, () => runJobs(t));
  const list = (userId: number | string, target = api) => integrationSchedules(t, target).list(userId);

  it('200 {schedules: []} for a user who has set none up', async () => {
    const ann = await tenant();
    const answer = await list(ann.userId);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { schedules: [] });
  });

  it('200: the user’s schedules, newest first, every status, as the tenant sees them', async () => {
    const ann = await tenant();
    const first = await scheduleOk(ann);
    t.clock.advance(1000);
    const canceled = await clientChange(ann, first.schedule_id, 'cancel');
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    t.clock.advance(1000);
    const second = await scheduleOk(ann);
    const answer = await list(ann.userId);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { schedules: [second, canceled.body] });
    assert.deepEqual(Object.keys(second).sort(), SCHEDULE_KEYS);
    assert.deepEqual(
      [second.status, second.user_id, second.payment_reference, second.next_due_date, canceled.body.status],
      ['active', ann.userId, ann.reference, '2026-03-10', 'canceled'],
    );
    assert.deepEqual((await ann.client.call('GET', '/schedules')).body, answer.body);
  });

  it('400 for a user_id that is missing or not a positive integer', async () => {
    for (const [query, message] of [
      ['', 'user_id: This field is required.'],
      ['?user_id=abc', 'user_id: A valid integer is required.'],
      ['?user_id=0', 'user_id: Ensure this value is greater than or equal to 1.'],
    ]) {
      const answer = await send(t, {
        method: 'GET',
        url: `/api/third-party/schedules/${query}`,
        headers: tokenHeader(api.serverToken),
      });
      assert.deepEqual(
        answer.body,
        { error: 'invalid_request', detail: `Invalid querystring: ${message}` },
        query,
      );
      assert.equal(answer.status, 400);
    }
  });

  it('404 for a user never onboarded, and for another integrator’s user alike', async () => {
    const theirs = await tenant(otherApi);
    await scheduleOk(theirs);
    for (const userId of [999_999, theirs.userId]) {
      assertError(
        await list(userId),
        404,
        'not_found',
        new RegExp(
          `^No user ${userId}\\. Send the user_id the user was onboarded with \\(POST /api/third-party/onboarding/\\)\\.$`,
        ),
      );
    }
  });

  it('401 with a malformed Authorization header', async () => {
    const answer = await send(t, {
      method: 'GET',
      url: '/api/third-party/schedules/?user_id=1',
      headers: { authorization: 'Token' },
    });
    assertError(answer, 401, 'unauthorized', /^Malformed Authorization header\./);
  });
});
