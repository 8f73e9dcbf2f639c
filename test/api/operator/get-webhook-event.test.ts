import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  paidTenant,
  startWebhookApp,
  successEventId,
} from '../../support/operation-tests.ts';

const EVENT_KEYS = [
  'attempt_count',
  'attempts',
  'attempts_in_round',
  'created_at',
  'delivered_at',
  'event_id',
  'failed_at',
  'integrator_id',
  'last_attempt_at',
  'last_error',
  'last_status_code',
  'next_attempt_at',
  'payload',
  'status',
  'type',
];

describe('GET /api/operator/webhooks/events/{event_id} (getWebhookEvent)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());

  const show = (id: string) => operatorRequest(w.t, 'GET', `/webhooks/events/${id}`);

  it('200: the event, the exact body sent and each attempt; pending until the worker delivers it', async () => {
    const { payment, userId } = await paidTenant(w.t, w.api);
    const id = await successEventId(w.t, payment.payment_id);
    const pending = await show(id);
    assert.equal(pending.status, 200, JSON.stringify(pending.body));
    assert.deepEqual(Object.keys(pending.body).sort(), EVENT_KEYS);
    const now = w.t.clock.now().toISOString();
    assert.deepEqual(
      [pending.body.event_id, pending.body.integrator_id, pending.body.type, pending.body.status],
      [id, w.integrator.id, 'payment_success', 'pending'],
    );
    assert.deepEqual(pending.body.attempts, []);
    const payload = JSON.parse(pending.body.payload);
    assert.deepEqual([payload.type, payload.data.user_id], ['payment_success', userId]);
    assert.equal(payload.data.payment.payment_id, payment.payment_id);

    await runJobs(w.t);
    const delivered = await show(id);
    assert.deepEqual(
      [
        delivered.body.status,
        delivered.body.attempt_count,
        delivered.body.delivered_at,
        delivered.body.last_status_code,
      ],
      ['delivered', 1, now, 200],
    );
    assert.equal(delivered.body.payload, w.receiver.received.at(-1)!.body, 'the body exactly as sent');
    assert.equal(delivered.body.attempts.length, 1);
    const [attempt] = delivered.body.attempts;
    assert.deepEqual(
      { ...attempt, latency_ms: undefined },
      {
        number: 1,
        url: w.receiver.url,
        attempted_at: now,
        latency_ms: undefined,
        status_code: 200,
        outcome: 'delivered',
        error: null,
        response_body: 'ok',
        next_attempt_at: null,
      },
    );
  });

  it('a failed attempt: its status, error, the answer’s body and when the next one comes', async () => {
    await w.answering({ status: 500, body: 'down for maintenance' }, async () => {
      const id = await w.paidEvent();
      await runJobs(w.t);
      const event = (await show(id)).body;
      assert.deepEqual([event.status, event.last_status_code], ['pending', 500]);
      const [attempt] = event.attempts;
      assert.deepEqual(
        [attempt.status_code, attempt.outcome, attempt.response_body, attempt.next_attempt_at],
        [500, 'retry', 'down for maintenance', event.next_attempt_at],
      );
      assert.ok(Date.parse(event.next_attempt_at) > w.t.clock.now().getTime());
    });
  });

  it('400 for an id that is not an event id; 404 for an unknown one', async () => {
    await assertIdChecked(show, 'event_id', 'evt_nope', /^No event evt_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    const id = await w.paidEvent();
    await assertOperatorTokenRequired(w.t, { method: 'GET', url: `/api/operator/webhooks/events/${id}` });
  });
});
