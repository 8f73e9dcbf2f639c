import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest, send } from '../../support/api-client.ts';
import { startTestApp, tokenHeader } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  shownIntegrator,
  whoami,
} from '../../support/operation-tests.ts';

describe('POST /api/operator/integrators/{integrator_id}/tokens/reissue (reissueServerToken)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  const reissue = (id: string) => operatorRequest(t, 'POST', `/integrators/${id}/tokens/reissue`);

  it('201: a new server token, the only one that works; the old one is refused at once', async () => {
    const { id, token } = await t.createIntegrator();
    const answer = await reissue(id);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body), ['server_token']);
    assert.match(answer.body.server_token, /^rp_sandbox_[A-Za-z0-9]{40}$/);
    assert.notEqual(answer.body.server_token, token);
    assertError(await whoami(t, token), 401, 'unauthorized');
    const fresh = await whoami(t, answer.body.server_token);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.integrator_id, id);
    const again = await reissue(id);
    assertError(await whoami(t, answer.body.server_token), 401, 'unauthorized');
    assert.equal((await whoami(t, again.body.server_token)).status, 200);
  });

  it('ends a token in its rotation grace period too; a suspension stays', async () => {
    const { id, token } = await t.createIntegrator();
    const rotated = await send(t, {
      method: 'POST',
      url: '/api/third-party/rotate-token/',
      headers: tokenHeader(token),
    });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    assert.equal((await whoami(t, token)).status, 200, 'the old token is in its grace period');
    assert.equal((await operatorRequest(t, 'POST', `/integrators/${id}/suspend`)).status, 200);
    const answer = await reissue(id);
    assert.equal(answer.status, 201);
    for (const ended of [token, rotated.body.token]) {
      assertError(await whoami(t, ended), 401, 'unauthorized');
    }
    assertError(await whoami(t, answer.body.server_token), 403, 'integrator_suspended');
    assert.equal((await shownIntegrator(t, id)).status, 'suspended');
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(reissue, 'integrator_id', 'int_nope', /^No integrator int_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the token keeps working', async () => {
    const { id, token } = await t.createIntegrator();
    await assertOperatorTokenRequired(t, {
      method: 'POST',
      url: `/api/operator/integrators/${id}/tokens/reissue`,
    });
    assert.equal((await whoami(t, token)).status, 200);
  });
});
