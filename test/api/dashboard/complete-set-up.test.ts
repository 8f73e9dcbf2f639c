import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import {
  currentCode,
  DASHBOARD,
  fromDashboard,
  invitePerson,
  PASSWORD,
} from '../../support/dashboard-client.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';

describe('POST /api/dashboard/setup/ (completeSetUp)', () => {
  let t: TestApp;
  let integratorId: string;
  before(async () => {
    t = await startTestApp();
    integratorId = (await t.createIntegrator()).id;
  });
  after(() => t.close());

  const post = (path: string, payload: object) =>
    send(t, { method: 'POST', url: `${DASHBOARD}${path}`, headers: fromDashboard(t), payload });

  async function secretFor(token: string): Promise<string> {
    return (await post('/setup/invite/', { invite: token })).body.totp.secret;
  }

  it('201 with an authenticator app: signed in, the password stored as a scrypt hash, the link used up, audited', async () => {
    const { token, userId } = await invitePerson(t, {
      team: integratorId,
      email: 'ada@example.com',
      role: 'admin',
    });
    const secret = await secretFor(token);
    const answer = await post('/setup/', {
      invite: token,
      password: PASSWORD,
      totp: { secret, code: currentCode(t, secret) },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.person.id, userId);
    assert.equal(answer.body.session.second_factor, 'totp');
    assert.match(String(answer.headers['set-cookie']), /^rentpay_session=rds_/);
    const [row] = await t.db.query<{ password_hash: string; totp_secret: string }>(
      'SELECT password_hash, totp_secret FROM dashboard_users WHERE id = $1',
      [userId],
    );
    assert.match(row!.password_hash, /^scrypt\$15\$8\$1\$/);
    assert.equal(row!.totp_secret, secret);
    assertError(await post('/setup/invite/', { invite: token }), 404, 'not_found');
    const [entry] = await t.db.query<{ action: string; actor: { email: string } }>(
      `SELECT action, actor FROM audit_log WHERE scope = $1 AND action = 'dashboard_user.set_up'`,
      [integratorId],
    );
    assert.equal(entry?.actor.email, 'ada@example.com');
  });

  it('201 with a passkey', async () => {
    const { token } = await invitePerson(t, {
      team: integratorId,
      email: 'pat@example.com',
      role: 'developer',
    });
    const options = await post('/setup/passkey-options/', { invite: token });
    const passkey = new SoftAuthenticator(new URL(t.config.publicUrl).origin);
    const answer = await post('/setup/', {
      invite: token,
      password: PASSWORD,
      passkey: { challenge_id: options.body.challenge_id, response: passkey.create(options.body.options) },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.session.second_factor, 'passkey');
  });

  it('400 and nothing changes: a short password, a wrong code, no second factor or two, a passkey made for another site', async () => {
    const { token } = await invitePerson(t, { team: integratorId, email: 'bo@example.com', role: 'support' });
    const secret = await secretFor(token);
    const short = await post('/setup/', {
      invite: token,
      password: 'too short',
      totp: { secret, code: currentCode(t, secret) },
    });
    assert.deepEqual(short.body, { password: ['Use at least 12 characters.'] });
    const wrong = await post('/setup/', {
      invite: token,
      password: PASSWORD,
      totp: { secret, code: '000000' },
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body['totp.code'][0], /That code is not right/);
    const none = await post('/setup/', { invite: token, password: PASSWORD });
    assert.match(none.body.non_field_errors[0], /Send one second factor/);
    const options = await post('/setup/passkey-options/', { invite: token });
    const elsewhere = new SoftAuthenticator('https://evil.example', '127.0.0.1');
    const phished = await post('/setup/', {
      invite: token,
      password: PASSWORD,
      passkey: { challenge_id: options.body.challenge_id, response: elsewhere.create(options.body.options) },
    });
    assertError(phished, 400, 'invalid_request', /passkey was not accepted/);
    // The link still works: nothing was set up.
    assert.equal((await post('/setup/invite/', { invite: token })).status, 200);
    const [row] = await t.db.query<{ password_hash: string | null }>(
      `SELECT password_hash FROM dashboard_users WHERE email_key = 'bo@example.com'`,
    );
    assert.equal(row?.password_hash, null);
  });

  it('404 for a used or unknown link', async () => {
    const answer = await post('/setup/', {
      invite: 'rpi_nope',
      password: PASSWORD,
      totp: { secret: 'A'.repeat(32), code: '123456' },
    });
    assertError(answer, 404, 'not_found');
  });
});
