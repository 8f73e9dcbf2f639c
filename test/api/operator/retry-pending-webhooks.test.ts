import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type Api, assertError, operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertFieldErrors,
  assertOperatorTokenRequired,
  startWebhookApp,
} from '../../support/operation-tests.ts';

describe('POST /api/operator/webhooks/retry-pending (retryPendingWebhooks)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());
  const other = await w.otherIntegrator(w.receiver.url);

  const retry = (body: object) => operatorRequest(w.t, 'POST', '/webhooks/retry-pending', body);

  /** Payments' events whose first attempt got a 503: each waits for its next attempt. Their ids. */
  function waiting(...apis: Api[]): Promise<string[]> {
    return w.answering({ status: 503 }, async () => {
      const ids = await w.paidEvents(...apis);
      await runJobs(w.t);
      for (const id of ids) {
        const shown = await w.event(id);
        assert.equal(shown.status, 'pending');
        assert.ok(Date.parse(shown.next_attempt_at) > w.t.clock.now().getTime(), 'not due yet');
      }
      return ids;
    });
  }

  it('202: every pending delivery is attempted now, same webhook-id, instead of on its schedule', async () => {
    const ids = await waiting(w.api, other);
    assert.equal(await runJobs(w.t), 0, 'nothing is due by the schedule');
    const answer = await retry({});
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { count: 2 });
    const received = w.receiver.received.length;
    await runJobs(w.t);
    assert.deepEqual(w.receiver.ids().slice(received).sort(), [...ids].sort());
    for (const id of ids) assert.equal((await w.event(id)).status, 'delivered');
    assert.deepEqual((await retry({})).body, { count: 0 }, 'nothing pending now');
  });

  it('with integrator_id, only that integrator’s deliveries', async () => {
    const [mine, theirs] = await waiting(w.api, other);
    const answer = await retry({ integrator_id: other.integratorId });
    assert.deepEqual(answer.body, { count: 1 });
    await runJobs(w.t);
    assert.equal((await w.event(theirs!)).status, 'delivered');
    const still = await w.event(mine!);
    assert.deepEqual([still.status, still.attempt_count], ['pending', 1]);
    assert.deepEqual((await retry({ integrator_id: w.integrator.id })).body, { count: 1 });
    await runJobs(w.t);
  });

  it('400 for an unknown member (it would widen the retry) or a malformed id; 404 for an unknown integrator', async () => {
    const [id] = await waiting(w.api);
    await assertFieldErrors(retry, [
      [{ integrator: w.integrator.id }, { non_field_errors: ['Unknown field "integrator".'] }],
      [
        { integrator_id: 'nope' },
        { integrator_id: ['Enter an integrator id: "int_" followed by letters and digits.'] },
      ],
    ]);
    assertError(await retry({ integrator_id: 'int_nope' }), 404, 'not_found', /^No integrator int_nope\.$/);
    assert.equal(await runJobs(w.t), 0, 'nothing was brought forward');
    assert.equal((await w.event(id!)).attempt_count, 1);
  });

  it('401 without the operator token, or with a wrong one; nothing is brought forward', async () => {
    await assertOperatorTokenRequired(w.t, {
      method: 'POST',
      url: '/api/operator/webhooks/retry-pending',
      payload: {},
    });
    assert.equal(await runJobs(w.t), 0);
  });
});
