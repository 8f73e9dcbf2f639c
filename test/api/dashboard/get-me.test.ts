import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SYSTEM_ACTOR } from '../../../src/audit/actor.ts';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('GET /api/dashboard/me/ (getMe): who is signed in, and how long a session lasts', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('200: the person, their role’s permissions, the CSRF token and when the session ends', async () => {
    const answer = await d.support.get('/me/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.person.email, 'support@platform.example');
    assert.equal(answer.body.person.integrator_id, d.integrator.id);
    assert.deepEqual(answer.body.permissions, ['events.read', 'payments.read', 'kyc.read']);
    assert.equal(answer.body.csrf_token, d.support.csrfToken);
  });

  it('a session used within 30 minutes goes on; after 30 idle minutes it has ended (401 session_expired)', async () => {
    const person = await d.developer.signInAgain();
    d.t.clock.advance(29 * 60_000);
    assert.equal((await person.get('/me/')).status, 200);
    d.t.clock.advance(29 * 60_000);
    assert.equal((await person.get('/me/')).status, 200);
    d.t.clock.advance(30 * 60_000);
    const ended = await person.get('/me/');
    assertError(ended, 401, 'session_expired', /30 minutes without use/);
    assert.match(String(ended.headers['set-cookie']), /Max-Age=0/);
  });

  it('however busy, a session ends 12 hours after signing in', async () => {
    const person = await d.finance.signInAgain();
    for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
      d.t.clock.advance(20 * 60_000);
      assert.equal((await person.get('/me/')).status, 200, `after ${minutes + 20} minutes`);
    }
    d.t.clock.advance(20 * 60_000);
    assertError(await person.get('/me/'), 401, 'session_expired');
  });

  it('a person removed from the team is signed out everywhere', async () => {
    const person = await d.support.signInAgain();
    await d.t.app.ctx.people.remove(SYSTEM_ACTOR, (await person.get('/me/')).body.person.id);
    assertError(await person.get('/me/'), 401, 'session_expired');
  });

  itRefusesWithoutASession(() => d, 'GET', '/me/');
});
