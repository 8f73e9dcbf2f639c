import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import { DASHBOARD, fromDashboard } from '../../support/dashboard-client.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

describe('POST /api/dashboard/sign-in/passkey-options/ (startPasskeySignIn)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('200: request options for this site, user verification required, a new challenge each time', async () => {
    const ask = () =>
      send(t, { method: 'POST', url: `${DASHBOARD}/sign-in/passkey-options/`, headers: fromDashboard(t) });
    const answer = await ask();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.options.rpId, '127.0.0.1');
    assert.equal(answer.body.options.userVerification, 'required');
    assert.match(answer.body.challenge_id, /^wch_/);
    assert.notEqual((await ask()).body.options.challenge, answer.body.options.challenge);
  });

  it('403 without the dashboard’s Origin', async () => {
    const answer = await send(t, { method: 'POST', url: `${DASHBOARD}/sign-in/passkey-options/` });
    assertError(answer, 403, 'forbidden', /no Origin header/);
  });
});
