import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  dashboardWithReceiver,
  itRefusesWithoutASession,
  signedInPerson,
} from '../../support/dashboard-client.ts';
import { runJobs } from '../../support/helpers.ts';

describe('GET /api/dashboard/events/{event_id}/ (getEvent)', () => {
  const env = dashboardWithReceiver();

  it('200: the event with each attempt: status code, latency, outcome and the next retry', async () => {
    const { d, receiver, url } = env();
    await d.admin.request('PUT', '/webhook-endpoint/', { url });
    receiver.respond = () => ({ status: 500, body: 'down' });
    const { event_id } = (await d.admin.post('/webhook-endpoint/ping/')).body;
    await runJobs(d.t);
    const answer = await d.support.get(`/events/${event_id}/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.event_id, event_id);
    assert.equal(answer.body.status, 'pending');
    assert.equal(answer.body.attempts.length, 1);
    const [attempt] = answer.body.attempts;
    assert.equal(attempt.status_code, 500);
    assert.equal(typeof attempt.latency_ms, 'number');
    assert.ok(attempt.next_attempt_at, 'the next retry is shown');
  });

  it('404 for another platform’s event and for an unknown one; 400 for a malformed id', async () => {
    const { d } = env();
    const { event_id } = (await d.admin.post('/webhook-endpoint/ping/')).body;
    const other = await d.t.createIntegrator({ name: 'Other' });
    const stranger = await signedInPerson(d.t, { team: other.id, email: 'x@other.example', role: 'admin' });
    assertError(await stranger.get(`/events/${event_id}/`), 404, 'not_found');
    assertError(await d.admin.get('/events/evt_unknown/'), 404, 'not_found');
    assert.equal((await d.admin.get('/events/nope/')).status, 400);
  });

  itRefusesWithoutASession(() => env().d, 'GET', '/events/evt_x/');
});
