import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, send } from '../../support/api-client.ts';
import { startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

const DAY = 86_400_000;
const INVALID = /^Invalid or expired token\. Send your newest server token/;

describe('POST /api/third-party/rotate-token/ (rotateToken)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const rotate = (token: string, body?: unknown): Promise<Answer> =>
    send(t, {
      method: 'POST',
      url: '/api/third-party/rotate-token/',
      headers: tokenHeader(token),
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const whoami = (token: string): Promise<Answer> =>
    send(t, { method: 'GET', url: '/api/third-party/integrator/', headers: tokenHeader(token) });
  const tokensOf = (id: string) =>
    t.db.query('SELECT id, expires_at FROM server_tokens WHERE integrator_id = $1 ORDER BY seq', [id]);

  it('201 without a body: a new token; the calling one works for 24 hours more, then answers 401', async () => {
    const { id, token: first } = await t.createIntegrator();
    const other = await t.createIntegrator({ name: 'Other platform' });
    const answer = await rotate(first);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), ['previous_token_expires_at', 'token']);
    assert.match(answer.body.token, /^rp_sandbox_[A-Za-z0-9]{40}$/);
    assert.notEqual(answer.body.token, first);
    assert.equal(
      answer.body.previous_token_expires_at,
      new Date(t.clock.now().getTime() + DAY).toISOString(),
    );
    for (const token of [first, answer.body.token])
      assert.equal((await whoami(token)).body.integrator_id, id);
    t.clock.advance(DAY);
    assertError(await whoami(first), 401, 'unauthorized', INVALID);
    assert.equal((await whoami(answer.body.token)).status, 200);
    assert.equal(
      (await whoami(other.token)).body.integrator_id,
      other.id,
      'another integrator’s token stays',
    );
  });

  it('grace_period_seconds: 0 ends the calling token at once; 60 keeps it for 60 seconds', async () => {
    const { token: first } = await t.createIntegrator();
    const second = await rotate(first, { grace_period_seconds: 0 });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.equal(second.body.previous_token_expires_at, t.clock.now().toISOString());
    assertError(await whoami(first), 401, 'unauthorized', INVALID);
    const third = await rotate(second.body.token, { grace_period_seconds: 60 });
    assert.equal(third.status, 201, JSON.stringify(third.body));
    assert.equal(
      third.body.previous_token_expires_at,
      new Date(t.clock.now().getTime() + 60_000).toISOString(),
    );
    t.clock.advance(59_999);
    assert.equal((await whoami(second.body.token)).status, 200, 'in its grace period');
    t.clock.advance(1);
    assertError(await whoami(second.body.token), 401, 'unauthorized', INVALID);
    assert.equal((await whoami(third.body.token)).status, 200);
  });

  it('403 forbidden for a replaced token in its grace period; no token changes', async () => {
    const { id, token: first } = await t.createIntegrator();
    const newest = (await rotate(first, { grace_period_seconds: 3600 })).body.token;
    const before = await tokensOf(id);
    assertError(
      await rotate(first, { grace_period_seconds: 0 }),
      403,
      'forbidden',
      /^Only the newest server token can rotate\. This token has been replaced and is in its grace period;/,
    );
    assert.deepEqual(await tokensOf(id), before);
    assert.equal((await whoami(first)).status, 200);
    assert.equal((await whoami(newest)).status, 200);
  });

  it('400 field errors for a bad grace period or body; nothing rotates', async () => {
    const { id, token } = await t.createIntegrator();
    const before = await tokensOf(id);
    for (const [body, errors] of [
      [
        { grace_period_seconds: 604_801 },
        { grace_period_seconds: ['Ensure this value is less than or equal to 604800.'] },
      ],
      [
        { grace_period_seconds: -1 },
        { grace_period_seconds: ['Ensure this value is greater than or equal to 0.'] },
      ],
      [
        { grace_period_seconds: '5' },
        { grace_period_seconds: ['A valid integer is required: a whole number without quotes, e.g. 5.'] },
      ],
      [[], { non_field_errors: ['Expected an object.'] }],
    ] as const) {
      const answer = await rotate(token, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.deepEqual(answer.body, errors);
    }
    assert.deepEqual(await tokensOf(id), before);
  });

  it('401 without a token; nothing rotates', async () => {
    const { id } = await t.createIntegrator();
    const before = await tokensOf(id);
    const answer = await send(t, { method: 'POST', url: '/api/third-party/rotate-token/' });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
    assert.equal(answer.headers['www-authenticate'], 'Token');
    assert.deepEqual(await tokensOf(id), before);
  });
});
