import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertAnswer, assertError, send, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { Receiver, verify } from '../../support/webhook-receiver.ts';

const ENDPOINT = '/api/third-party/webhook-endpoint/';

describe('PUT /api/third-party/webhook-endpoint/ (setWebhookEndpoint)', () => {
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

  const put = (token: string, body: unknown): Promise<Answer> =>
    send(t, { method: 'PUT', url: ENDPOINT, headers: tokenHeader(token), payload: body as object });
  const get = (token: string) => send(t, { method: 'GET', url: ENDPOINT, headers: tokenHeader(token) });
  /** A test ping, delivered: what the receiver got for it (undefined when nothing was sent). */
  async function ping(token: string) {
    const { event_id } = (
      await send(t, { method: 'POST', url: `${ENDPOINT}test/`, headers: tokenHeader(token) })
    ).body;
    await runJobs(t);
    return receiver.received.find((received) => received.headers['webhook-id'] === event_id);
  }

  it('200: the first URL ever comes with a new signing secret, shown once; deliveries go there signed with it', async () => {
    const { token, webhookSecret } = await t.createIntegrator(UNLIMITED);
    t.clock.advance(1000);
    const answer = await put(token, { url: `${receiver.url}/first` });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { secret, ...endpoint } = answer.body;
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, webhookSecret);
    assert.deepEqual(endpoint, {
      ...(await get(token)).body,
      url: `${receiver.url}/first`,
      state: 'enabled',
    });
    assert.equal(endpoint.updated_at, t.clock.now().toISOString());
    const delivered = await ping(token);
    assert.equal(delivered?.path, '/hooks/first');
    verify(secret, delivered!, t.clock.now());
  });

  it('later sets never show a secret; null removes the URL and nothing is sent', async () => {
    const { token } = await t.createIntegrator(UNLIMITED);
    const { secret } = (await put(token, { url: receiver.url })).body;
    const again = await put(token, { url: `${receiver.url}/second` });
    assert.equal(again.status, 200);
    assert.equal('secret' in again.body, false);
    const removed = await put(token, { url: null });
    assert.deepEqual([removed.status, removed.body.url, 'secret' in removed.body], [200, null, false]);
    assert.equal(await ping(token), undefined);
    const reset = await put(token, { url: receiver.url });
    assert.equal('secret' in reset.body, false, 'the live secret is never shown again');
    verify(secret, (await ping(token))!, t.clock.now());
  });

  it('setting a URL enables an endpoint a 410 Gone disabled', async () => {
    const { token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: `${receiver.url}/gone` });
    receiver.respond = () => ({ status: 410 });
    try {
      await ping(token);
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
    }
    assert.equal((await get(token)).body.state, 'disabled');
    const answer = await put(token, { url: `${receiver.url}/gone` });
    assert.deepEqual([answer.status, answer.body.state], [200, 'enabled']);
    assert.ok(await ping(token), 'delivered again');
  });

  it('400 field errors for a URL that is not http(s), has credentials, is blank or missing; nothing changes', async () => {
    const { token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    const before = (await get(token)).body;
    t.clock.advance(1000);
    for (const [body, errors] of [
      [
        { url: 'ftp://example.com/hooks' },
        { url: ['Enter an http or https URL, e.g. https://example.com/webhooks.'] },
      ],
      [{ url: 'https://user:secret@example.com/hooks' }, { url: ['URLs with credentials are not allowed.'] }],
      [{ url: '' }, { url: ['This field may not be blank.'] }],
      [{ url: 5 }, { url: ['Not a valid string: send the value in quotes.'] }],
      [{}, { url: ['This field is required.'] }],
      [[], { non_field_errors: ['Expected an object.'] }],
    ] as const) {
      assertAnswer(await put(token, body), 400, errors);
    }
    assert.deepEqual((await get(token)).body, before);
  });

  it('403 forbidden for a replaced token in its grace period; nothing changes', async () => {
    const { token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    const rotated = await send(t, {
      method: 'POST',
      url: '/api/third-party/rotate-token/',
      headers: tokenHeader(token),
      payload: { grace_period_seconds: 3600 },
    });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    const before = (await get(token)).body;
    assertError(
      await put(token, { url: `${receiver.url}/attacker` }),
      403,
      'forbidden',
      /^Only the newest server token can change the webhook endpoint\. This token has been replaced and is in its grace period;/,
    );
    assert.deepEqual((await get(rotated.body.token)).body, before);
    assert.equal(
      (await put(rotated.body.token, { url: `${receiver.url}/new` })).status,
      200,
      'the newest can',
    );
  });

  it('changes the caller’s endpoint only', async () => {
    const a = await t.createIntegrator(UNLIMITED);
    const b = await t.createIntegrator({ ...UNLIMITED, webhook_url: `${receiver.url}/b` });
    const before = (await get(b.token)).body;
    t.clock.advance(1000);
    assert.equal((await put(a.token, { url: `${receiver.url}/a` })).status, 200);
    assert.equal((await put(a.token, { url: null })).status, 200);
    assert.deepEqual((await get(b.token)).body, before);
  });

  it('401 with an unknown token; nothing changes', async () => {
    const { token } = await t.createIntegrator(UNLIMITED);
    const answer = await put(`rp_sandbox_${'Z'.repeat(40)}`, { url: receiver.url });
    assertError(answer, 401, 'unauthorized', /^Invalid or expired token\./);
    assert.equal((await get(token)).body.url, null);
  });
});
