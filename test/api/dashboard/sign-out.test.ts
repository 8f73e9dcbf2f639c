import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('POST /api/dashboard/sign-out/ (signOut)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('204: this session ends and its cookie is cleared; the person’s other sessions go on', async () => {
    const laptop = await d.developer.signInAgain();
    const phone = await d.developer.signInAgain();
    const answer = await laptop.post('/sign-out/');
    assert.equal(answer.status, 204);
    assert.match(
      String(answer.headers['set-cookie']),
      /^rentpay_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/,
    );
    assertError(await laptop.get('/me/'), 401, 'session_expired');
    assert.equal((await phone.get('/me/')).status, 200);
  });

  it('204 with everywhere: every session of the person ends; other people stay signed in', async () => {
    const laptop = await d.finance.signInAgain();
    const phone = await d.finance.signInAgain();
    assert.equal((await laptop.post('/sign-out/', { everywhere: true })).status, 204);
    assertError(await phone.get('/me/'), 401, 'session_expired');
    assert.equal((await d.admin.get('/me/')).status, 200);
  });

  it('400 for an unknown field', async () => {
    assert.equal((await d.support.post('/sign-out/', { all: true })).status, 400);
  });

  itRefusesWithoutASession(() => d, 'POST', '/sign-out/');
});
