import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import { DASHBOARD, fromDashboard, invitePerson } from '../../support/dashboard-client.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

describe('POST /api/dashboard/setup/passkey-options/ (startPasskeySetUp)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const options = (invite: string) =>
    send(t, {
      method: 'POST',
      url: `${DASHBOARD}/setup/passkey-options/`,
      headers: fromDashboard(t),
      payload: { invite },
    });

  it('200: creation options for this site (RP id from the public URL), the person, a discoverable passkey, verified', async () => {
    const integrator = await t.createIntegrator();
    const { token, userId } = await invitePerson(t, {
      team: integrator.id,
      email: 'ada@example.com',
      role: 'admin',
    });
    const answer = await options(token);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.match(answer.body.challenge_id, /^wch_[A-Za-z0-9]{22}$/);
    const created = answer.body.options;
    assert.deepEqual(created.rp, { name: 'rentpay', id: '127.0.0.1' });
    assert.equal(created.user.name, 'ada@example.com');
    assert.equal(Buffer.from(created.user.id, 'base64url').toString(), userId);
    assert.equal(created.attestation, 'none');
    assert.equal(created.authenticatorSelection.residentKey, 'required');
    assert.equal(created.authenticatorSelection.userVerification, 'required');
    assert.ok(created.pubKeyCredParams.some((p: { alg: number }) => p.alg === -7));
    assert.notEqual((await options(token)).body.options.challenge, created.challenge);
  });

  it('404 for a link that does not work', async () => {
    assertError(await options('rpi_nothing'), 404, 'not_found');
  });
});
