import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

const WHOAMI = '/api/third-party/integrator/';
const ROTATE = '/api/third-party/rotate-token/';

async function whoami(t: TestApp, authorization?: string) {
  return t.app.inject({
    method: 'GET',
    url: WHOAMI,
    headers: authorization === undefined ? {} : { authorization },
  });
}

async function rotate(t: TestApp, token: string, body?: unknown) {
  return t.app.inject({
    method: 'POST',
    url: ROTATE,
    headers: tokenHeader(token),
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
}

function assert401(
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  detail: RegExp,
) {
  assert.equal(response.statusCode, 401);
  const body = response.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['detail', 'error']);
  assert.equal(body.error, 'unauthorized');
  assert.match(String(body.detail), detail);
  assert.equal(response.headers['www-authenticate'], 'Token');
}

describe('Integration API authentication: happy path', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('accepts a valid server token and answers with the caller’s own integrator', async () => {
    const { id, token } = await t.createIntegrator({ name: 'Acme Lettings' });
    const response = await whoami(t, `Token ${token}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().integrator_id, id);
    assert.equal(response.json().name, 'Acme Lettings');
    assert.equal(response.json().webhook_secret, undefined, 'the webhook secret is not echoed');
  });

  it('accepts the scheme case-insensitively, as HTTP auth schemes are', async () => {
    const { token } = await t.createIntegrator();
    assert.equal((await whoami(t, `token ${token}`)).statusCode, 200);
  });

  it('stores server tokens hashed only', async () => {
    const { token } = await t.createIntegrator();
    const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM server_tokens');
    const dump = JSON.stringify(rows);
    assert.ok(!dump.includes(token), 'the token itself is not in the database');
    assert.ok(!dump.includes(token.slice(16)), 'no large part of the token is in the database');
  });
});

describe('Integration API authentication: every 401', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await startTestApp();
    ({ token } = await t.createIntegrator());
  });
  after(() => t.close());

  it('missing header', async () => {
    assert401(await whoami(t), /credentials were not provided/);
  });

  it('empty header', async () => {
    assert401(await whoami(t, ''), /credentials were not provided/);
  });

  for (const [name, header] of [
    ['no scheme', 'rp_sandbox_abc'],
    ['scheme only', 'Token'],
    ['scheme and empty token', 'Token '],
    ['three parts', 'Token a b'],
  ] as const) {
    it(`malformed header: ${name}`, async () => {
      assert401(await whoami(t, header), /Malformed Authorization header/);
    });
  }

  it('wrong scheme (Bearer with a server token)', async () => {
    assert401(await whoami(t, `Bearer ${token}`), /Unsupported authorization scheme "Bearer"/);
  });

  it('wrong scheme (Basic)', async () => {
    assert401(await whoami(t, 'Basic dXNlcjpwYXNz'), /Unsupported authorization scheme "Basic"/);
  });

  it('unknown token with the right prefix', async () => {
    assert401(
      await whoami(t, `Token rp_sandbox_${'x'.repeat(40)}`),
      /^Invalid or expired token\. Send your newest server token \(issued by the operator, or the last one rotate-token returned\) as "Authorization: Token <server token>"; if it is lost, ask the operator to reissue it\.$/,
    );
  });

  it('a token that is not ours at all', async () => {
    assert401(
      await whoami(t, 'Token sk_test_123'),
      /Server tokens for this environment start with "rp_sandbox_"/,
    );
  });

  it('the other environment’s prefix', async () => {
    assert401(
      await whoami(t, `Token rp_live_${token.slice('rp_sandbox_'.length)}`),
      /^This token belongs to the production environment; this is the sandbox environment\. Send your sandbox server token \(it starts with "rp_sandbox_"\), or send the request to your production deployment\.$/,
    );
  });

  it('a user session token, with either scheme', async () => {
    const userToken = `rp_ust_${'a'.repeat(43)}`;
    assert401(
      await whoami(t, `Bearer ${userToken}`),
      /^This is a user session token, which is for the payment page and SDK\. The Integration API takes your server token: send "Authorization: Token <server token>"\.$/,
    );
    assert401(await whoami(t, `Token ${userToken}`), /user session token/);
  });

  it('an operator token on the Integration API', async () => {
    assert401(await whoami(t, `Token ${t.config.operatorToken}`), /start with "rp_sandbox_"/);
  });

  it('every 401 leaves no trace of the presented token in the logs', async () => {
    await whoami(t, `Token ${token}x`);
    assert.ok(!t.logs.text.includes(token), 'token not logged');
  });
});

describe('token rotation', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('with the default grace: both tokens work for 24 h, then only the new one', async () => {
    const { token: first } = await t.createIntegrator();
    const response = await rotate(t, first);
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['previous_token_expires_at', 'token']);
    assert.match(body.token, /^rp_sandbox_[A-Za-z0-9]{40}$/);
    assert.notEqual(body.token, first);
    assert.equal(
      body.previous_token_expires_at,
      new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
    );

    t.clock.advance(86_400_000 - 1);
    assert.equal((await whoami(t, `Token ${first}`)).statusCode, 200, 'old token inside the grace period');
    assert.equal((await whoami(t, `Token ${body.token}`)).statusCode, 200);
    t.clock.advance(1);
    assert401(await whoami(t, `Token ${first}`), /Invalid or expired token/);
    assert.equal((await whoami(t, `Token ${body.token}`)).statusCode, 200);
  });

  it('with a grace period of N seconds', async () => {
    const { token: first } = await t.createIntegrator();
    const response = await rotate(t, first, { grace_period_seconds: 90 });
    assert.equal(response.statusCode, 201);
    assert.equal(
      response.json().previous_token_expires_at,
      new Date(t.clock.now().getTime() + 90_000).toISOString(),
    );
    t.clock.advance(89_999);
    assert.equal((await whoami(t, `Token ${first}`)).statusCode, 200);
    t.clock.advance(1);
    assert401(await whoami(t, `Token ${first}`), /Invalid or expired token/);
  });

  it('with grace 0 the calling token ends at once', async () => {
    const { token: first } = await t.createIntegrator();
    const response = await rotate(t, first, { grace_period_seconds: 0 });
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().previous_token_expires_at, t.clock.now().toISOString());
    assert401(await whoami(t, `Token ${first}`), /Invalid or expired token/);
    assert.equal((await whoami(t, `Token ${response.json().token}`)).statusCode, 200);
  });

  it('a third rotation ends the oldest token at once: never more than two valid', async () => {
    const { token: first } = await t.createIntegrator();
    const second = (await rotate(t, first, { grace_period_seconds: 3600 })).json().token;
    const third = (await rotate(t, second, { grace_period_seconds: 3600 })).json().token;
    assert401(await whoami(t, `Token ${first}`), /Invalid or expired token/);
    assert.equal((await whoami(t, `Token ${second}`)).statusCode, 200);
    assert.equal((await whoami(t, `Token ${third}`)).statusCode, 200);
  });

  it('a replaced token in its grace period cannot rotate: 403 forbidden, and nothing changes', async () => {
    const { id, token: first } = await t.createIntegrator();
    const second = (await rotate(t, first, { grace_period_seconds: 3600 })).json().token;
    const before = await t.db.query(
      'SELECT id, expires_at FROM server_tokens WHERE integrator_id = $1 ORDER BY seq',
      [id],
    );
    const response = await rotate(t, first, { grace_period_seconds: 0 });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().error, 'forbidden');
    assert.match(response.json().detail, /Only the newest server token can rotate/);
    assert.deepEqual(
      await t.db.query('SELECT id, expires_at FROM server_tokens WHERE integrator_id = $1 ORDER BY seq', [
        id,
      ]),
      before,
    );
    // Both still work: the newest for ever, the replaced one until its grace ends.
    assert.equal((await whoami(t, `Token ${second}`)).statusCode, 200);
    assert.equal((await whoami(t, `Token ${first}`)).statusCode, 200);
    t.clock.advance(3_600_000);
    assert401(await whoami(t, `Token ${first}`), /Invalid or expired token/);
    assert.equal((await whoami(t, `Token ${second}`)).statusCode, 200);
  });

  it('concurrent rotations by the newest token: one wins, the others get 403, two tokens stay valid', async () => {
    const { id, token: first } = await t.createIntegrator();
    const responses = await Promise.all(
      [1, 2, 3, 4].map(() => rotate(t, first, { grace_period_seconds: 600 })),
    );
    const created = responses.filter((r) => r.statusCode === 201);
    assert.equal(created.length, 1);
    for (const r of responses) assert.ok([201, 403].includes(r.statusCode), r.body);
    const [row] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM server_tokens
        WHERE integrator_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
      [id, t.clock.now()],
    );
    assert.equal(row?.n, 2);
    assert.equal((await whoami(t, `Token ${created[0]!.json().token}`)).statusCode, 200);
    assert.equal((await whoami(t, `Token ${first}`)).statusCode, 200);
  });

  it('an expired token’s hash is deleted by the retirement job once its grace has passed, not before', async () => {
    const { id, token: first } = await t.createIntegrator();
    await rotate(t, first, { grace_period_seconds: 60 });
    const count = async () =>
      (
        await t.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM server_tokens WHERE integrator_id = $1',
          [id],
        )
      )[0]?.n;
    await runJobs(t);
    assert.equal(await count(), 2, 'nothing retired during the grace period');
    t.clock.advance(60_000);
    await runJobs(t);
    assert.equal(await count(), 1, 'expired token removed');
    assert401(await whoami(t, `Token ${first}`), /Invalid or expired token/);
    await runJobs(t);
    assert.equal(await count(), 1, 'running again changes nothing');
  });

  it('rejects a bad grace period with a field error and changes nothing', async () => {
    const { token } = await t.createIntegrator();
    for (const [body, message] of [
      [{ grace_period_seconds: -1 }, 'Ensure this value is greater than or equal to 0.'],
      [{ grace_period_seconds: 604_801 }, 'Ensure this value is less than or equal to 604800.'],
      [{ grace_period_seconds: '60' }, 'A valid integer is required: a whole number without quotes, e.g. 5.'],
      [{ grace_period_seconds: 1.5 }, 'A valid integer is required: a whole number without quotes, e.g. 5.'],
    ] as const) {
      const response = await rotate(t, token, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(response.json(), { grace_period_seconds: [message] });
    }
    assert.equal((await whoami(t, `Token ${token}`)).statusCode, 200);
    const response = await rotate(t, token, [1, 2]);
    assert.equal(response.statusCode, 400);
    assert.equal((await whoami(t, `Token ${token}`)).statusCode, 200, 'still the only token, unexpired');
  });

  it('a rotated-out token cannot rotate', async () => {
    const { token: first } = await t.createIntegrator();
    await rotate(t, first, { grace_period_seconds: 0 });
    assert401(await rotate(t, first), /Invalid or expired token/);
  });
});
