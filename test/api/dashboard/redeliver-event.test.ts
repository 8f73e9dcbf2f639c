import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  dashboardWithReceiver,
  itRefusesWithoutASession,
  signedInPerson,
} from '../../support/dashboard-client.ts';
import { runJobs } from '../../support/helpers.ts';

describe('POST /api/dashboard/events/{event_id}/redeliver/ (redeliverEvent)', () => {
  const env = dashboardWithReceiver();

  it('202: an event sent before no URL existed is sent now, with the same webhook-id', async () => {
    const { d, receiver, url } = env();
    const { event_id } = (await d.developer.post('/webhook-endpoint/ping/')).body;
    assert.equal((await d.developer.get(`/events/${event_id}/`)).body.status, 'not_sent');
    await d.developer.request('PUT', '/webhook-endpoint/', { url });
    const answer = await d.developer.post(`/events/${event_id}/redeliver/`);
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'pending');
    await runJobs(d.t);
    await receiver.waitFor(1);
    assert.equal(receiver.received.at(-1)!.headers['webhook-id'], event_id);
    assert.equal((await d.developer.get(`/events/${event_id}/`)).body.status, 'delivered');
  });

  it('403 for support; 404 for another platform’s event', async () => {
    const { d } = env();
    const { event_id } = (await d.admin.post('/webhook-endpoint/ping/')).body;
    assertError(await d.support.post(`/events/${event_id}/redeliver/`), 403, 'forbidden', /webhooks\.manage/);
    const other = await d.t.createIntegrator({ name: 'Other' });
    const stranger = await signedInPerson(d.t, { team: other.id, email: 'x@other.example', role: 'admin' });
    assertError(await stranger.post(`/events/${event_id}/redeliver/`), 404, 'not_found');
  });

  itRefusesWithoutASession(() => env().d, 'POST', '/events/evt_x/redeliver/');
});
