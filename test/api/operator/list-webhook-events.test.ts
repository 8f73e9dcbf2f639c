import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import { assertOperatorTokenRequired, startWebhookApp } from '../../support/operation-tests.ts';

describe('GET /api/operator/webhooks/events (listWebhookEvents)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());
  /** The integrator’s events, oldest first: delivered, then pending (its endpoint answered 500). */
  const events: string[] = [await w.paidEvent()];
  await runJobs(w.t);
  w.t.clock.advance(1000);
  const secondAt = w.t.clock.now().toISOString();
  await w.answering({ status: 500 }, async () => {
    events.push(await w.paidEvent());
    await runJobs(w.t);
  });
  w.t.clock.advance(1000);
  const other = await w.otherIntegrator();
  const otherId = other.integratorId;
  const otherEvent = await w.paidEvent(other);

  const list = (query: string) => operatorRequest(w.t, 'GET', `/webhooks/events?${query}`);
  const ids = (answer: { body: { data: { event_id: string }[] } }) =>
    answer.body.data.map((event) => event.event_id);

  it('200: every integrator’s events newest first, each with the state of its delivery', async () => {
    const answer = await list('');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), ['data', 'has_more']);
    assert.deepEqual(ids(answer), [otherEvent, events[1], events[0]]);
    assert.equal(answer.body.has_more, false);
    assert.deepEqual(
      answer.body.data.map((event: { status: string; last_status_code: number | null }) => [
        event.status,
        event.last_status_code,
      ]),
      [
        ['not_sent', null],
        ['pending', 500],
        ['delivered', 200],
      ],
    );
    const shown = await w.event(events[0]!);
    const { payload: _, attempts: __, ...summary } = shown;
    assert.deepEqual(answer.body.data[2], summary, 'as GET shows it, without the body and attempts');
  });

  it('filters by integrator, delivery status, type and time', async () => {
    assert.deepEqual(ids(await list(`integrator_id=${w.integrator.id}`)), [events[1], events[0]]);
    assert.deepEqual(ids(await list(`integrator_id=${otherId}`)), [otherEvent]);
    assert.deepEqual(ids(await list('status=pending')), [events[1]]);
    assert.deepEqual(ids(await list('status=failed')), []);
    assert.deepEqual(ids(await list('type=payment_success&status=delivered')), [events[0]]);
    assert.deepEqual(ids(await list('type=payment_failed')), []);
    assert.deepEqual(ids(await list(`since=${encodeURIComponent(secondAt)}`)), [otherEvent, events[1]]);
  });

  it('pages: limit, then starting_after the last event while has_more', async () => {
    const first = await list('limit=2');
    assert.deepEqual(ids(first), [otherEvent, events[1]]);
    assert.equal(first.body.has_more, true);
    const next = await list(`limit=2&starting_after=${events[1]}`);
    assert.deepEqual(ids(next), [events[0]]);
    assert.equal(next.body.has_more, false);
  });

  it('400 invalid_request for bad parameters', async () => {
    for (const [query, detail] of [
      ['limit=0', /limit: Ensure this value is greater than or equal to 1\./],
      ['status=nope', /^Invalid querystring: status: /],
      ['since=yesterday', /^Invalid querystring: since: Datetime has wrong format\. Use ISO 8601\.$/],
      ['starting_after=evt_nope', /^Invalid querystring: starting_after: No event evt_nope\./],
      ['integrator_id=nope', /integrator_id/],
      ['colour=blue', /colour/],
    ] as const) {
      assertError(await list(query), 400, 'invalid_request', detail);
    }
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(w.t, { method: 'GET', url: '/api/operator/webhooks/events' });
  });
});
