/** "Keep me signed in": POST /api/client/session/extend over HTTP with the test clock. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, integrationApi, UNLIMITED } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';
import { clientOf } from '../../support/payment-client.ts';

describe('keeping a tenant signed in', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    await api.onboardOk(userBody({ user_id: 77, email: 'stay@example.com', tenant: [tenancyBody()] }));
  });
  after(() => t.close());

  const minutes = (n: number) => t.clock.advance(n * 60_000);

  it('extends the token by its lifetime, up to the session’s end and no further; then it lapses', async () => {
    t.clock.set('2026-11-27T10:00:00.000Z');
    const client = clientOf(t, (await api.loginOk('stay@example.com')).token);
    assert.equal((await client.call('GET', '/session')).body.expires_in_seconds, 900);
    minutes(14);
    const first = await client.call('POST', '/session/extend');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, {
      token_expires_at: '2026-11-27T10:29:00.000Z',
      expires_at: '2026-11-27T10:30:00.000Z',
      expires_in_seconds: 900,
      extendable: true,
    });
    minutes(10);
    const second = await client.call('POST', '/session/extend');
    assert.deepEqual(
      [second.body.token_expires_at, second.body.expires_in_seconds, second.body.extendable],
      ['2026-11-27T10:30:00.000Z', 360, false],
    );
    minutes(6);
    const lapsed = await client.call('POST', '/session/extend');
    assert.equal(lapsed.status, 401);
    assert.equal(lapsed.body.error, 'session_expired');
    assert.equal((await client.call('GET', '/session')).status, 401);
  });

  it('a token that lapsed cannot be brought back', async () => {
    t.clock.set('2026-11-27T12:00:00.000Z');
    const client = clientOf(t, (await api.loginOk('stay@example.com')).token);
    minutes(15);
    assert.equal((await client.call('POST', '/session/extend')).status, 401);
  });
});
