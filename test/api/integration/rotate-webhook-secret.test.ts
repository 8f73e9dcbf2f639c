import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertAnswer, assertError, send, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { type Received, Receiver, verify } from '../../support/webhook-receiver.ts';

const ROTATE = '/api/third-party/webhook-endpoint/rotate-secret/';
const DAY = 86_400_000;

describe('POST /api/third-party/webhook-endpoint/rotate-secret/ (rotateWebhookSecret)', () => {
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

  /** A new integrator whose URL is the receiver (set by the operator), with its secret. */
  const integrator = () => t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
  const rotate = (token: string, body?: unknown): Promise<Answer> =>
    send(t, {
      method: 'POST',
      url: ROTATE,
      headers: tokenHeader(token),
      ...(body ? { payload: body as object } : {}),
    });
  /** A test ping of the integrator, delivered. */
  async function ping(token: string): Promise<Received> {
    const answer = await send(t, {
      method: 'POST',
      url: '/api/third-party/webhook-endpoint/test/',
      headers: tokenHeader(token),
    });
    await runJobs(t);
    const received = receiver.received.find((r) => r.headers['webhook-id'] === answer.body.event_id);
    assert.ok(received, 'delivered');
    return received;
  }
  const signatures = (received: Received) => String(received.headers['webhook-signature']).split(' ').length;
  const storedSecret = async (id: string) =>
    (
      await t.db.query<{ webhook_secret: string }>('SELECT webhook_secret FROM integrators WHERE id = $1', [
        id,
      ])
    )[0];

  it('201 without a body: a new secret; for 24 hours deliveries carry both signatures, then the new one only', async () => {
    const { token, webhookSecret } = await integrator();
    const answer = await rotate(token);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), ['previous_secret_expires_at', 'secret']);
    assert.match(answer.body.secret, /^whsec_/);
    assert.notEqual(answer.body.secret, webhookSecret);
    const expires = new Date(t.clock.now().getTime() + DAY).toISOString();
    assert.equal(answer.body.previous_secret_expires_at, expires);
    const endpoint = await send(t, {
      method: 'GET',
      url: '/api/third-party/webhook-endpoint/',
      headers: tokenHeader(token),
    });
    assert.equal(endpoint.body.previous_secret_expires_at, expires);

    const during = await ping(token);
    assert.equal(signatures(during), 2);
    verify(webhookSecret, during, t.clock.now());
    verify(answer.body.secret, during, t.clock.now());
    t.clock.advance(DAY);
    const afterwards = await ping(token);
    assert.equal(signatures(afterwards), 1);
    verify(answer.body.secret, afterwards, t.clock.now());
    assert.throws(() => verify(webhookSecret, afterwards, t.clock.now()), /No matching signature found/);
  });

  it('overlap_seconds: 0 stops the previous secret at once', async () => {
    const { token, webhookSecret } = await integrator();
    const answer = await rotate(token, { overlap_seconds: 0 });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.previous_secret_expires_at, t.clock.now().toISOString());
    const delivered = await ping(token);
    assert.equal(signatures(delivered), 1);
    verify(answer.body.secret, delivered, t.clock.now());
    assert.throws(() => verify(webhookSecret, delivered, t.clock.now()), /No matching signature found/);
  });

  it('400 field errors for a bad overlap or body; the secret stays', async () => {
    const { id, token } = await integrator();
    const before = await storedSecret(id);
    for (const [body, errors] of [
      [
        { overlap_seconds: 604_801 },
        { overlap_seconds: ['Ensure this value is less than or equal to 604800.'] },
      ],
      [{ overlap_seconds: -1 }, { overlap_seconds: ['Ensure this value is greater than or equal to 0.'] }],
      [
        { overlap_seconds: '60' },
        { overlap_seconds: ['A valid integer is required: a whole number without quotes, e.g. 5.'] },
      ],
      [[], { non_field_errors: ['Expected an object.'] }],
    ] as const) {
      assertAnswer(await rotate(token, body), 400, errors);
    }
    assert.deepEqual(await storedSecret(id), before);
  });

  it('403 forbidden for a replaced token in its grace period; the secret stays', async () => {
    const { id, token } = await integrator();
    const rotated = await send(t, {
      method: 'POST',
      url: '/api/third-party/rotate-token/',
      headers: tokenHeader(token),
      payload: { grace_period_seconds: 3600 },
    });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    const before = await storedSecret(id);
    assertError(
      await rotate(token, { overlap_seconds: 0 }),
      403,
      'forbidden',
      /^Only the newest server token can rotate the webhook secret\. This token has been replaced and is in its grace period;/,
    );
    assert.deepEqual(await storedSecret(id), before);
    assert.equal((await rotate(rotated.body.token)).status, 201, 'the newest can');
  });

  it('rotates the caller’s secret only', async () => {
    const a = await integrator();
    const b = await integrator();
    assert.equal((await rotate(a.token, { overlap_seconds: 0 })).status, 201);
    const delivered = await ping(b.token);
    assert.equal(signatures(delivered), 1);
    verify(b.webhookSecret, delivered, t.clock.now());
  });

  it('401 without a token; the secret stays', async () => {
    const { id } = await integrator();
    const before = await storedSecret(id);
    const answer = await send(t, { method: 'POST', url: ROTATE, payload: { overlap_seconds: 0 } });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
    assert.deepEqual(await storedSecret(id), before);
  });
});
