import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import { DASHBOARD, fromDashboard, invitePerson } from '../../support/dashboard-client.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

describe('POST /api/dashboard/setup/invite/ (lookUpInvite)', () => {
  let t: TestApp;
  let integratorId: string;
  before(async () => {
    t = await startTestApp();
    integratorId = (await t.createIntegrator({ name: 'Lettings Co' })).id;
  });
  after(() => t.close());

  const lookUp = (invite: string, headers = fromDashboard(t)) =>
    send(t, { method: 'POST', url: `${DASHBOARD}/setup/invite/`, headers, payload: { invite } });

  it('200: who the link is for, their team, and a new authenticator-app secret as text, URI and QR code', async () => {
    const { token } = await invitePerson(t, {
      team: integratorId,
      email: 'Ada@Example.com',
      role: 'finance',
    });
    const answer = await lookUp(token);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.email, 'Ada@Example.com');
    assert.equal(answer.body.role, 'finance');
    assert.deepEqual(answer.body.team, { id: integratorId, name: 'Lettings Co' });
    assert.match(answer.body.totp.secret, /^[A-Z2-7]{32}$/);
    assert.equal(
      answer.body.totp.uri,
      `otpauth://totp/rentpay:Ada%40Example.com?secret=${answer.body.totp.secret}&issuer=rentpay&algorithm=SHA1&digits=6&period=30`,
    );
    assert.match(answer.body.totp.qr_svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.notEqual((await lookUp(token)).body.totp.secret, answer.body.totp.secret);
    assert.equal(answer.headers['cache-control'], 'no-store');
  });

  it('404 for an unknown link, one replaced by a newer invite, and one past its 72 hours', async () => {
    assertError(await lookUp('rpi_made_up'), 404, 'not_found', /Ask an admin of your team for a new invite/);
    const first = await invitePerson(t, { team: integratorId, email: 'bo@example.com', role: 'support' });
    const second = await invitePerson(t, { team: integratorId, email: 'bo@example.com', role: 'support' });
    assertError(await lookUp(first.token), 404, 'not_found');
    assert.equal((await lookUp(second.token)).status, 200);
    t.clock.advance(72 * 3_600_000);
    assertError(await lookUp(second.token), 404, 'not_found');
  });

  it('operator staff: no team', async () => {
    const { token } = await invitePerson(t, {
      team: null,
      email: 'ops@rentpay.example',
      role: 'operator_support',
    });
    const answer = await lookUp(token);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.team, null);
  });

  it('403 from another origin; 400 without the invite', async () => {
    assertError(await lookUp('rpi_x', { origin: 'https://evil.example' }), 403, 'forbidden');
    const missing = await send(t, {
      method: 'POST',
      url: `${DASHBOARD}/setup/invite/`,
      headers: fromDashboard(t),
      payload: {},
    });
    assert.equal(missing.status, 400);
  });
});
