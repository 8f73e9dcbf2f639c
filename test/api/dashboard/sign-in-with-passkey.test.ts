import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import {
  DASHBOARD,
  fromDashboard,
  invitePerson,
  PASSWORD,
  sessionCookie,
} from '../../support/dashboard-client.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';

describe('POST /api/dashboard/sign-in/passkey/ (signInWithPasskey)', () => {
  let t: TestApp;
  let passkey: SoftAuthenticator;
  before(async () => {
    t = await startTestApp();
    const integrator = await t.createIntegrator();
    const { token } = await invitePerson(t, {
      team: integrator.id,
      email: 'pat@example.com',
      role: 'developer',
    });
    passkey = new SoftAuthenticator(new URL(t.config.publicUrl).origin);
    const options = await post('/setup/passkey-options/', { invite: token });
    const setUp = await post('/setup/', {
      invite: token,
      password: PASSWORD,
      passkey: { challenge_id: options.body.challenge_id, response: passkey.create(options.body.options) },
    });
    assert.equal(setUp.status, 201, JSON.stringify(setUp.body));
    assert.equal(setUp.body.session.second_factor, 'passkey');
  });
  after(() => t.close());

  const post = (path: string, payload: unknown) =>
    send(t, {
      method: 'POST',
      url: `${DASHBOARD}${path}`,
      headers: fromDashboard(t),
      payload: payload as object,
    });

  async function challenge(): Promise<{ challenge_id: string; options: { challenge: string } }> {
    const answer = await post('/sign-in/passkey-options/', {});
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  }

  it('200: the passkey alone signs its person in', async () => {
    const { challenge_id, options } = await challenge();
    const answer = await post('/sign-in/passkey/', { challenge_id, response: passkey.get(options) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.person.email, 'pat@example.com');
    assert.equal(answer.body.session.second_factor, 'passkey');
    const me = await send(t, {
      method: 'GET',
      url: `${DASHBOARD}/me/`,
      headers: { cookie: sessionCookie(answer) },
    });
    assert.equal(me.status, 200);
  });

  it('401: a challenge works once; a passkey unknown here, or a signature by another key, is refused', async () => {
    const { challenge_id, options } = await challenge();
    const response = passkey.get(options);
    assert.equal((await post('/sign-in/passkey/', { challenge_id, response })).status, 200);
    assertError(
      await post('/sign-in/passkey/', { challenge_id, response }),
      401,
      'unauthorized',
      /not accepted/,
    );

    const stranger = new SoftAuthenticator(passkey.origin);
    const second = await challenge();
    assertError(
      await post('/sign-in/passkey/', {
        challenge_id: second.challenge_id,
        response: stranger.get(second.options),
      }),
      401,
      'unauthorized',
    );
    const third = await challenge();
    assertError(
      await post('/sign-in/passkey/', {
        challenge_id: third.challenge_id,
        response: passkey.get(third.options, { signWith: stranger }),
      }),
      401,
      'unauthorized',
    );
  });

  it('401 when the challenge is more than 5 minutes old', async () => {
    const { challenge_id, options } = await challenge();
    t.clock.advance(5 * 60_000 + 1);
    assertError(
      await post('/sign-in/passkey/', { challenge_id, response: passkey.get(options) }),
      401,
      'unauthorized',
    );
  });

  it('400 for a response that is not a WebAuthn credential', async () => {
    const { challenge_id } = await challenge();
    const answer = await post('/sign-in/passkey/', { challenge_id, response: { id: 'x' } });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
  });
});
