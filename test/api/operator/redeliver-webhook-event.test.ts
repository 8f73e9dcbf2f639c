import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  startWebhookApp,
} from '../../support/operation-tests.ts';
import { verify } from '../../support/webhook-receiver.ts';

describe('POST /api/operator/webhooks/events/{event_id}/redeliver (redeliverWebhookEvent)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());

  const redeliver = (id: string) => operatorRequest(w.t, 'POST', `/webhooks/events/${id}/redeliver`);

  /** A payment_success event the endpoint has received; its id. */
  async function delivered(): Promise<string> {
    const id = await w.paidEvent();
    await runJobs(w.t);
    assert.equal((await w.event(id)).status, 'delivered');
    return id;
  }

  it('202: a delivered event, pending again on a new round; sent again with the same webhook-id and body', async () => {
    const id = await delivered();
    const first = w.receiver.received.find((r) => r.headers['webhook-id'] === id)!;
    w.t.clock.advance(60_000);
    const answer = await redeliver(id);
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    const { payload: _, attempts: __, ...summary } = await w.event(id);
    assert.deepEqual(answer.body, summary);
    assert.deepEqual(
      [answer.body.event_id, answer.body.status, answer.body.attempts_in_round, answer.body.attempt_count],
      [id, 'pending', 0, 1],
    );
    await runJobs(w.t);
    const copies = w.receiver.received.filter((r) => r.headers['webhook-id'] === id);
    assert.equal(copies.length, 2);
    assert.equal(copies[1]!.body, first.body);
    verify(w.integrator.webhookSecret, copies[1]!, w.t.clock.now());
    assert.deepEqual([(await w.event(id)).status, (await w.event(id)).attempt_count], ['delivered', 2]);
  });

  it('409 while the endpoint is disabled by a 410, or when the integrator has no webhook URL; nothing is sent', async () => {
    const id = await delivered();
    await w.disableEndpoint();
    const before = await w.event(id);
    assertError(await redeliver(id), 409, 'conflict', /is disabled \(it answered 410 Gone\)/);
    assert.deepEqual(await w.event(id), before);
    assert.equal(
      (await operatorRequest(w.t, 'POST', `/integrators/${w.integrator.id}/webhook/enable`)).status,
      200,
    );

    const other = await w.otherIntegrator();
    const unsent = await w.paidEvent(other);
    assertError(
      await redeliver(unsent),
      409,
      'conflict',
      new RegExp(`^Integrator ${other.integratorId} has no webhook URL; set one first\\.$`),
    );
    assert.equal((await w.event(unsent)).status, 'not_sent');
  });

  it('400 for an id that is not an event id; 404 for an unknown one', async () => {
    await assertIdChecked(redeliver, 'event_id', 'evt_nope', /^No event evt_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the event stays delivered', async () => {
    const id = await delivered();
    await assertOperatorTokenRequired(w.t, {
      method: 'POST',
      url: `/api/operator/webhooks/events/${id}/redeliver`,
    });
    assert.equal((await w.event(id)).status, 'delivered');
  });
});
