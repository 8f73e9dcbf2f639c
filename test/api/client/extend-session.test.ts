import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertClientTokenRequired } from '../../support/operation-tests.ts';
import { newTenant, startPaymentApp } from '../../support/payment-client.ts';

const MINUTE = 60_000;

describe('POST /api/client/session/extend (extendSession)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const at = (ms: number) => new Date(ms).toISOString();

  it('200: the token lives another 15 minutes from now; GET /session shows it', async () => {
    const { client } = await newTenant(t, api);
    const loggedIn = t.clock.now().getTime();
    t.clock.advance(10 * MINUTE);
    const answer = await client.call('POST', '/session/extend');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      token_expires_at: at(loggedIn + 25 * MINUTE),
      expires_at: at(loggedIn + 30 * MINUTE),
      expires_in_seconds: 900,
      extendable: true,
    });
    const session = (await client.call('GET', '/session')).body;
    assert.equal(session.token_expires_at, at(loggedIn + 25 * MINUTE));
    assert.equal(session.expires_in_seconds, 900);
    // Without the extension the token would have lapsed 15 minutes after the login.
    t.clock.advance(6 * MINUTE);
    assert.equal((await client.call('GET', '/session')).status, 200);
  });

  it('never past the session’s end: then extendable is false and extending again changes nothing', async () => {
    const { client } = await newTenant(t, api);
    const loggedIn = t.clock.now().getTime();
    t.clock.advance(14 * MINUTE);
    assert.equal((await client.call('POST', '/session/extend')).body.extendable, true);
    t.clock.advance(14 * MINUTE);
    const last = await client.call('POST', '/session/extend');
    assert.deepEqual(last.body, {
      token_expires_at: at(loggedIn + 30 * MINUTE),
      expires_at: at(loggedIn + 30 * MINUTE),
      expires_in_seconds: 120,
      extendable: false,
    });
    const again = await client.call('POST', '/session/extend');
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, last.body);
    t.clock.advance(2 * MINUTE);
    const lapsed = await client.call('POST', '/session/extend');
    assert.equal(lapsed.status, 401);
    assert.equal(lapsed.body.error, 'session_expired');
  });

  it('extends the caller’s own token only: another tenant’s session is unchanged', async () => {
    const ann = await newTenant(t, api);
    const bob = await newTenant(t, otherApi);
    const bobBefore = (await bob.client.call('GET', '/session')).body.token_expires_at;
    t.clock.advance(5 * MINUTE);
    assert.equal((await ann.client.call('POST', '/session/extend')).status, 200);
    assert.equal((await bob.client.call('GET', '/session')).body.token_expires_at, bobBefore);
    const [row] = await t.db.query<{ token_expires_at: Date }>(
      'SELECT token_expires_at FROM sessions WHERE id = $1',
      [bob.sessionId],
    );
    assert.equal(new Date(row!.token_expires_at).toISOString(), bobBefore);
  });

  it('401 without a token, and once the token has lapsed (a lapsed token cannot be extended)', async () => {
    await assertClientTokenRequired(t, api, { method: 'POST', url: '/api/client/session/extend' });
  });
});
