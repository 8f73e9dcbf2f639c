import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  signedInPerson,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('GET /api/dashboard/events/ (listEvents)', () => {
  let d: DashboardApp;
  let pings: string[];
  before(async () => {
    d = await startDashboardApp();
    pings = [];
    for (let i = 0; i < 3; i++) {
      d.t.clock.advance(1000);
      pings.push((await d.admin.post('/webhook-endpoint/ping/')).body.event_id);
    }
  });
  after(() => d.t.close());

  it('200: the platform’s events newest first, each with its delivery; cursor paging', async () => {
    const first = await d.support.get('/events/?limit=2');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(
      first.body.data.map((e: { event_id: string }) => e.event_id),
      [pings[2], pings[1]],
    );
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.data[0].status, 'not_sent');
    const next = await d.support.get(`/events/?limit=2&starting_after=${pings[1]}`);
    assert.deepEqual(
      next.body.data.map((e: { event_id: string }) => e.event_id),
      [pings[0]],
    );
    assert.equal(next.body.has_more, false);
    assert.equal((await d.support.get('/events/?status=delivered')).body.data.length, 0);
  });

  it('another platform’s events are not listed, and its cursor is unknown (400)', async () => {
    const other = await d.t.createIntegrator({ name: 'Other' });
    const stranger = await signedInPerson(d.t, { team: other.id, email: 'x@other.example', role: 'admin' });
    assert.deepEqual((await stranger.get('/events/')).body.data, []);
    assertError(
      await stranger.get(`/events/?starting_after=${pings[0]}`),
      400,
      'invalid_request',
      /No event/,
    );
  });

  it('400 for an unknown status or a limit out of range', async () => {
    assert.equal((await d.support.get('/events/?status=lost')).status, 400);
    assert.equal((await d.support.get('/events/?limit=101')).status, 400);
  });

  itRefusesWithoutASession(() => d, 'GET', '/events/');
});
