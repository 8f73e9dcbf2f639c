import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, send, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { Receiver } from '../../support/webhook-receiver.ts';

const ENDPOINT = '/api/third-party/webhook-endpoint/';

describe('GET /api/third-party/webhook-endpoint/ (getWebhookEndpoint)', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
    t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  const call = (token: string, method: 'GET' | 'PUT' | 'POST', path = '', body?: object): Promise<Answer> =>
    send(t, {
      method,
      url: `${ENDPOINT}${path}`,
      headers: tokenHeader(token),
      ...(body ? { payload: body } : {}),
    });
  const get = (token: string) => call(token, 'GET');

  it('200: no URL, enabled, no secret rotation under way for a new integrator', async () => {
    const { token } = await t.createIntegrator(UNLIMITED);
    const now = t.clock.now().toISOString();
    const answer = await get(token);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      url: null,
      state: 'enabled',
      created_at: now,
      updated_at: now,
      previous_secret_expires_at: null,
    });
  });

  it('shows the URL set (by the operator or by PUT) and a rotation’s overlap while it lasts', async () => {
    const created = t.clock.now().toISOString();
    const { token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: `${receiver.url}/by-operator` });
    assert.equal((await get(token)).body.url, `${receiver.url}/by-operator`);
    t.clock.advance(1000);
    assert.equal((await call(token, 'PUT', '', { url: receiver.url })).status, 200);
    const rotated = await call(token, 'POST', 'rotate-secret/', { overlap_seconds: 3600 });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    assert.deepEqual((await get(token)).body, {
      url: receiver.url,
      state: 'enabled',
      created_at: created,
      updated_at: t.clock.now().toISOString(),
      previous_secret_expires_at: rotated.body.previous_secret_expires_at,
    });
    t.clock.advance(3_600_000);
    assert.equal((await get(token)).body.previous_secret_expires_at, null, 'the overlap is over');
  });

  it('disabled once the URL answered 410 Gone; enabled again when a URL is set', async () => {
    const { token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: `${receiver.url}/gone` });
    receiver.respond = () => ({ status: 410, body: 'gone' });
    try {
      assert.equal((await call(token, 'POST', 'test/')).status, 202);
      await runJobs(t);
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
    }
    const disabled = (await get(token)).body;
    assert.deepEqual([disabled.url, disabled.state], [`${receiver.url}/gone`, 'disabled']);
    assert.equal((await call(token, 'PUT', '', { url: `${receiver.url}/gone` })).status, 200);
    assert.equal((await get(token)).body.state, 'enabled');
  });

  it('each integrator sees its own endpoint only', async () => {
    const a = await t.createIntegrator({ ...UNLIMITED, webhook_url: `${receiver.url}/a` });
    const b = await t.createIntegrator(UNLIMITED);
    assert.equal((await call(a.token, 'POST', 'rotate-secret/', {})).status, 201);
    const theirs = (await get(b.token)).body;
    assert.deepEqual([theirs.url, theirs.previous_secret_expires_at], [null, null]);
    assert.equal((await get(a.token)).body.url, `${receiver.url}/a`);
  });

  it('401 without a token', async () => {
    assertError(
      await send(t, { method: 'GET', url: ENDPOINT }),
      401,
      'unauthorized',
      /^Authentication credentials were not provided\./,
    );
  });
});
