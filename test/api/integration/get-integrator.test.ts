import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, operatorRequest, send } from '../../support/api-client.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { INTEGRATOR_KEYS } from '../../support/operation-tests.ts';

describe('GET /api/third-party/integrator/ (getIntegrator)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const own = (token: string): Promise<Answer> =>
    send(t, { method: 'GET', url: '/api/third-party/integrator/', headers: tokenHeader(token) });

  it('200: the calling token’s own settings, exactly as the operator holds them; never a token or secret', async () => {
    const created = await t.createIntegrator({
      name: 'Lettings Co',
      allowed_origins: ['https://lettings.example'],
      fees: { card: { percent: '1.40', fixed: '0.20' } },
      rate_limit_per_second: 50,
    });
    const answer = await own(created.token);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), INTEGRATOR_KEYS);
    const now = t.clock.now().toISOString();
    assert.deepEqual(
      { ...answer.body, features: undefined },
      {
        integrator_id: created.id,
        name: 'Lettings Co',
        environment: 'sandbox',
        status: 'active',
        webhook_url: null,
        allowed_origins: ['https://lettings.example'],
        fees: { card: { percent: '1.40', fixed: '0.20' } },
        business_lets: false,
        features: undefined,
        rate_limit_per_second: 50,
        rate_limit_burst: 200,
        reminder_days_before: null,
        created_at: now,
        updated_at: now,
      },
    );
    assert.deepEqual(answer.body.features, { apms: true, wallets: true, recurring: true, savedCards: true });
    assert.deepEqual(answer.body, (await operatorRequest(t, 'GET', `/integrators/${created.id}`)).body);
    const text = JSON.stringify(answer.body);
    assert.ok(!text.includes(created.token) && !text.includes(created.webhookSecret), 'no credential');
  });

  it('shows the operator’s changes at once', async () => {
    const created = await t.createIntegrator({ name: 'Before' });
    t.clock.advance(1000);
    const patched = await send(t, {
      method: 'PATCH',
      url: `/api/operator/integrators/${created.id}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      payload: { name: 'After', reminder_days_before: 3 },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const answer = await own(created.token);
    assert.equal(answer.status, 200);
    assert.deepEqual(
      [answer.body.name, answer.body.reminder_days_before, answer.body.updated_at],
      ['After', 3, t.clock.now().toISOString()],
    );
  });

  it('each token sees its own integrator only', async () => {
    const a = await t.createIntegrator({ name: 'Platform A' });
    const b = await t.createIntegrator({ name: 'Platform B' });
    const [seenByA, seenByB] = [await own(a.token), await own(b.token)];
    assert.deepEqual([seenByA.body.integrator_id, seenByA.body.name], [a.id, 'Platform A']);
    assert.deepEqual([seenByB.body.integrator_id, seenByB.body.name], [b.id, 'Platform B']);
  });

  it('401 with an unknown server token, with a challenge', async () => {
    const answer = await own('rp_sandbox_NotAToken000000000000000000000000000000');
    assertError(answer, 401, 'unauthorized', /^Invalid or expired token\. Send your newest server token/);
    assert.equal(answer.headers['www-authenticate'], 'Token');
  });
});
