import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import {
  currentCode,
  DASHBOARD,
  type DashboardPerson,
  fromDashboard,
  PASSWORD,
  sessionCookie,
  signedInPerson,
  signIn,
} from '../../support/dashboard-client.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

describe('POST /api/dashboard/sign-in/ (signIn)', () => {
  let t: TestApp;
  let ada: DashboardPerson;
  before(async () => {
    t = await startTestApp();
    const integrator = await t.createIntegrator();
    ada = await signedInPerson(t, { team: integrator.id, email: 'ada@example.com', role: 'admin' });
  });
  after(() => t.close());

  it('200: email, password and the app’s code open a session: an HttpOnly, SameSite=Strict cookie and a CSRF token', async () => {
    const answer = await signIn(t, ada);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.person.email, 'ada@example.com');
    assert.equal(answer.body.person.role, 'admin');
    assert.ok(answer.body.permissions.includes('team.manage'));
    assert.match(answer.body.csrf_token, /^[A-Za-z0-9]{32}$/);
    const cookie = String(answer.headers['set-cookie']);
    // The test app's public URL is plain http on 127.0.0.1 (a loopback sandbox): no Secure, so no __Host- prefix.
    assert.match(
      cookie,
      /^rentpay_session=rds_[A-Za-z0-9]{40}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    assert.equal(answer.headers['cache-control'], 'no-store');
    const me = await send(t, {
      method: 'GET',
      url: `${DASHBOARD}/me/`,
      headers: { cookie: sessionCookie(answer) },
    });
    assert.equal(me.status, 200);
    assert.equal(me.body.csrf_token, answer.body.csrf_token);
  });

  it('401, the same words, for an unknown email, a wrong password, a wrong code and a code used before', async () => {
    const unknown = await signIn(t, { ...ada, email: 'nobody@example.com' });
    const wrongPassword = await signIn(t, ada, { password: 'not the password at all' });
    const wrongCode = await signIn(t, ada, { code: '000000' });
    for (const answer of [unknown, wrongPassword, wrongCode]) {
      assertError(answer, 401, 'unauthorized', /^The email, password or code is not right\.$/);
    }
    t.clock.advance(30_000);
    const code = currentCode(t, ada.totpSecret);
    const first = await send(t, {
      method: 'POST',
      url: `${DASHBOARD}/sign-in/`,
      headers: fromDashboard(t),
      payload: { email: ada.email, password: PASSWORD, code },
    });
    assert.equal(first.status, 200);
    const replayed = await send(t, {
      method: 'POST',
      url: `${DASHBOARD}/sign-in/`,
      headers: fromDashboard(t),
      payload: { email: ada.email, password: PASSWORD, code },
    });
    assertError(replayed, 401, 'unauthorized', /^The email, password or code is not right\.$/);
  });

  it('429 after 5 failures for an email (known or not) within 15 minutes, even with the right password; then free again', async () => {
    t.clock.advance(16 * 60_000);
    for (const email of [ada.email, 'ghost@example.com']) {
      for (let i = 0; i < 5; i++) {
        assert.equal((await signIn(t, { ...ada, email }, { password: 'wrong password here' })).status, 401);
      }
      const locked = await signIn(t, { ...ada, email });
      assertError(
        locked,
        429,
        'too_many_attempts',
        /Too many failed sign-ins for this email or from your address/,
      );
      assert.ok(Number(locked.headers['retry-after']) > 0);
    }
    t.clock.advance(15 * 60_000);
    assert.equal((await signIn(t, ada)).status, 200);
  });

  it('429 after 20 failures from one address, whichever emails it tried', async () => {
    t.clock.advance(16 * 60_000);
    for (let i = 0; i < 20; i++) {
      assert.equal((await signIn(t, { ...ada, email: `guess${i}@example.com` })).status, 401);
    }
    assertError(await signIn(t, ada), 429, 'too_many_attempts');
    t.clock.advance(16 * 60_000);
  });

  it('403 without the dashboard’s Origin, or from another origin: nothing is checked', async () => {
    for (const origin of [undefined, 'https://evil.example']) {
      const answer = await send(t, {
        method: 'POST',
        url: `${DASHBOARD}/sign-in/`,
        headers: origin ? { origin } : {},
        payload: { email: ada.email, password: PASSWORD, code: '123456' },
      });
      assertError(answer, 403, 'forbidden', origin ? /cannot change anything here/ : /no Origin header/);
    }
  });

  it('400 for a missing field or an unknown one', async () => {
    const missing = await send(t, {
      method: 'POST',
      url: `${DASHBOARD}/sign-in/`,
      headers: fromDashboard(t),
      payload: { email: ada.email, password: PASSWORD },
    });
    assert.equal(missing.status, 400);
    assert.ok('code' in missing.body, JSON.stringify(missing.body));
  });
});
