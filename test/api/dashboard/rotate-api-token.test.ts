import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
} from '../../support/dashboard-client.ts';
import { tokenHeader } from '../../support/helpers.ts';

describe('POST /api/dashboard/api-token/rotate/ (rotateApiToken)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  const integration = (token: string) =>
    send(d.t, { method: 'GET', url: '/api/third-party/integrator/', headers: tokenHeader(token) });

  it('201: a new token shown once; the one before works through the grace period; audited with the person’s email', async () => {
    const answer = await d.developer.post('/api-token/rotate/', { grace_period_seconds: 60 });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.match(answer.body.token, /^rp_sandbox_[A-Za-z0-9]{40}$/);
    assert.equal(
      answer.body.previous_token_expires_at,
      new Date(d.t.clock.now().getTime() + 60_000).toISOString(),
    );
    assert.equal((await integration(answer.body.token)).status, 200);
    assert.equal((await integration(d.integrator.token)).status, 200);
    d.t.clock.advance(60_000);
    assert.equal((await integration(d.integrator.token)).status, 401);
    const [entry] = await d.t.db.query<{ actor: { email: string; role: string } }>(
      `SELECT actor FROM audit_log WHERE scope = $1 AND action = 'server_token.rotate' ORDER BY seq DESC LIMIT 1`,
      [d.integrator.id],
    );
    assert.deepEqual([entry?.actor.email, entry?.actor.role], ['developer@platform.example', 'developer']);
  });

  it('403 for finance and support: their roles do not manage credentials; nothing changes', async () => {
    for (const person of [d.finance, d.support]) {
      assertError(
        await person.post('/api-token/rotate/'),
        403,
        'forbidden',
        /does not allow this \(credentials\.manage\)/,
      );
    }
  });

  it('400 for a grace period out of range', async () => {
    const answer = await d.admin.post('/api-token/rotate/', { grace_period_seconds: -1 });
    assert.equal(answer.status, 400);
  });

  itRefusesWithoutASession(() => d, 'POST', '/api-token/rotate/');
});
