import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { dashboardWithReceiver, itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { runJobs } from '../../support/helpers.ts';
import { verify } from '../../support/webhook-receiver.ts';

describe('POST /api/dashboard/webhook-endpoint/ping/ (sendTestWebhook)', () => {
  const env = dashboardWithReceiver();

  it('202: a signed ping reaches the endpoint and is listed among the events', async () => {
    const { d, receiver, url } = env();
    const set = await d.developer.request('PUT', '/webhook-endpoint/', { url });
    assert.equal(set.status, 200);
    // The first URL ever set comes with the secret that signs from then on.
    const secret: string = set.body.secret ?? d.integrator.webhookSecret;
    const answer = await d.developer.post('/webhook-endpoint/ping/');
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.match(answer.body.event_id, /^evt_/);
    await runJobs(d.t);
    await receiver.waitFor(1);
    assert.equal(receiver.received[0]!.headers['webhook-id'], answer.body.event_id);
    verify(secret, receiver.received[0]!, d.t.clock.now());
    const events = await d.support.get('/events/');
    assert.equal(events.body.data[0].event_id, answer.body.event_id);
    assert.equal(events.body.data[0].type, 'ping');
  });

  it('403 for support and finance', async () => {
    const { d } = env();
    for (const person of [d.support, d.finance]) {
      assertError(await person.post('/webhook-endpoint/ping/'), 403, 'forbidden', /webhooks\.manage/);
    }
  });

  itRefusesWithoutASession(() => env().d, 'POST', '/webhook-endpoint/ping/');
});
