/**
 * Integrator self-service on the Integration API, over real HTTP: the webhook endpoint (get, set, rotate the
 * secret with an overlap, a test ping), the event list and redelivery, the payment list and refunds. Each with
 * isolation: integrator B can neither see, refund nor redeliver A's.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { EVENT_TYPES, webhookBodySchema } from '../../../src/integration/webhook-events.ts';
import type { EventType } from '../../../src/webhooks/record-event.ts';
import { integrationApi, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, newTenant, PAN } from '../../support/payment-client.ts';
import { Receiver, verify } from '../../support/webhook-receiver.ts';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer, asserted on field by field
  body: any;
}

let t: TestApp;
let base: string;
let receiver: Receiver;
let a: { id: string; token: string; webhookSecret: string };
let b: { id: string; token: string; webhookSecret: string };

before(async () => {
  t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  receiver = await Receiver.start();
  a = await t.createIntegrator({ ...UNLIMITED, name: 'Platform A' });
  b = await t.createIntegrator({ ...UNLIMITED, name: 'Platform B' });
});
after(async () => {
  await receiver.close();
  await t.close();
});

async function call(
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}/api/third-party${path}`, {
    method,
    headers: {
      ...tokenHeader(token),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function assertError(answer: Answer, status: number, code: string, detail?: RegExp) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error, code, JSON.stringify(answer.body));
  if (detail) assert.match(answer.body.detail, detail);
}

describe('webhook endpoint self-service', () => {
  it('starts without a URL; a refused URL is a 400 that says how to fix it and changes nothing', async () => {
    const shown = await call(b.token, 'GET', '/webhook-endpoint/');
    assert.equal(shown.status, 200);
    assert.equal(shown.body.url, null);
    assert.equal(shown.body.state, 'enabled');
    const notHttp = await call(b.token, 'PUT', '/webhook-endpoint/', { url: 'ftp://example.com/hooks' });
    assert.equal(notHttp.status, 400);
    assert.match(notHttp.body.url[0], /http or https URL/);
    const missing = await call(b.token, 'PUT', '/webhook-endpoint/', {});
    assert.equal(missing.status, 400);
    assert.deepEqual((await call(b.token, 'GET', '/webhook-endpoint/')).body, shown.body);
  });

  it('sets a URL: the first time ever with a newly made secret, then never a secret; B sees only its own', async () => {
    const set = await call(a.token, 'PUT', '/webhook-endpoint/', { url: `${receiver.url}/a` });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.url, `${receiver.url}/a`);
    assert.match(set.body.secret, /^whsec_/);
    assert.notEqual(set.body.secret, a.webhookSecret, 'made by this request, not the one created with A');
    a.webhookSecret = set.body.secret;
    const again = await call(a.token, 'PUT', '/webhook-endpoint/', { url: `${receiver.url}/hooks` });
    assert.equal(again.status, 200);
    assert.equal(again.body.secret, undefined);
    // Cleared and set again: the live secret is still not shown.
    const cleared = await call(a.token, 'PUT', '/webhook-endpoint/', { url: null });
    assert.deepEqual([cleared.status, cleared.body.url, cleared.body.secret], [200, null, undefined]);
    const reset = await call(a.token, 'PUT', '/webhook-endpoint/', { url: `${receiver.url}/hooks` });
    assert.deepEqual([reset.status, reset.body.secret], [200, undefined]);
    assert.equal((await call(a.token, 'GET', '/webhook-endpoint/')).body.url, `${receiver.url}/hooks`);
    assert.equal((await call(b.token, 'GET', '/webhook-endpoint/')).body.url, null);
  });

  it('a test ping is delivered signed, and listed', async () => {
    const before = receiver.received.length;
    const ping = await call(a.token, 'POST', '/webhook-endpoint/test/');
    assert.equal(ping.status, 202);
    assert.match(ping.body.event_id, /^evt_/);
    await runJobs(t);
    const delivered = receiver.received.slice(before);
    assert.equal(delivered.length, 1);
    assert.equal(delivered[0]!.headers['webhook-id'], ping.body.event_id);
    const body = verify(a.webhookSecret, delivered[0]!, t.clock.now()) as { type: string; data: unknown };
    assert.deepEqual({ type: body.type, data: body.data }, { type: 'ping', data: { integrator_id: a.id } });
    const listed = await call(a.token, 'GET', '/events/?type=ping&limit=1');
    assert.deepEqual(listed.body.data[0], {
      event_id: ping.body.event_id,
      type: 'ping',
      created_at: t.clock.now().toISOString(),
      data: { integrator_id: a.id },
      delivery: { status: 'delivered', attempts: 1 },
    });
  });

  it('rotating the secret: both secrets verify during the overlap, only the new one after it', async () => {
    const tooLong = await call(a.token, 'POST', '/webhook-endpoint/rotate-secret/', {
      overlap_seconds: 604_801,
    });
    assert.equal(tooLong.status, 400);
    assert.ok(tooLong.body.overlap_seconds, JSON.stringify(tooLong.body));
    const rotated = await call(a.token, 'POST', '/webhook-endpoint/rotate-secret/', {
      overlap_seconds: 3600,
    });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    assert.match(rotated.body.secret, /^whsec_/);
    assert.equal(
      rotated.body.previous_secret_expires_at,
      new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
    );
    assert.equal(
      (await call(a.token, 'GET', '/webhook-endpoint/')).body.previous_secret_expires_at,
      rotated.body.previous_secret_expires_at,
    );

    const during = receiver.received.length;
    await call(a.token, 'POST', '/webhook-endpoint/test/');
    await runJobs(t);
    const signedTwice = receiver.received[during]!;
    assert.equal(String(signedTwice.headers['webhook-signature']).split(' ').length, 2);
    verify(a.webhookSecret, signedTwice, t.clock.now());
    verify(rotated.body.secret, signedTwice, t.clock.now());

    t.clock.advance(3_600_000);
    await runJobs(t);
    const afterOverlap = receiver.received.length;
    await call(a.token, 'POST', '/webhook-endpoint/test/');
    await runJobs(t);
    const signedOnce = receiver.received[afterOverlap]!;
    assert.equal(String(signedOnce.headers['webhook-signature']).split(' ').length, 1);
    verify(rotated.body.secret, signedOnce, t.clock.now());
    assert.throws(() => verify(a.webhookSecret, signedOnce, t.clock.now()));
    assert.equal((await call(a.token, 'GET', '/webhook-endpoint/')).body.previous_secret_expires_at, null);
    a.webhookSecret = rotated.body.secret;
  });

  it('a replaced token in its grace period cannot change the endpoint or the secret: 403, nothing changes', async () => {
    const c = await t.createIntegrator({ ...UNLIMITED, name: 'Platform C' });
    const first = await call(c.token, 'PUT', '/webhook-endpoint/', { url: `${receiver.url}/c` });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const rotated = await call(c.token, 'POST', '/rotate-token/', { grace_period_seconds: 3600 });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    const [secretBefore] = await t.db.query(
      'SELECT webhook_secret, webhook_url FROM integrators WHERE id = $1',
      [c.id],
    );
    const endpointBefore = (await call(rotated.body.token, 'GET', '/webhook-endpoint/')).body;
    // The takeover the old token tried: clear the URL, set it again to its own, read the secret, rotate it.
    for (const [method, path, body] of [
      ['PUT', '/webhook-endpoint/', { url: null }],
      ['PUT', '/webhook-endpoint/', { url: `${receiver.url}/attacker` }],
      ['POST', '/webhook-endpoint/rotate-secret/', { overlap_seconds: 0 }],
      ['POST', '/webhook-endpoint/rotate-secret/', undefined],
    ] as const) {
      assertError(await call(c.token, method, path, body), 403, 'forbidden', /newest server token/);
    }
    assert.equal((await call(c.token, 'GET', '/webhook-endpoint/')).status, 200, 'it can still read');
    assert.deepEqual(
      await t.db.query('SELECT webhook_secret, webhook_url FROM integrators WHERE id = $1', [c.id]),
      [secretBefore],
    );
    assert.deepEqual((await call(rotated.body.token, 'GET', '/webhook-endpoint/')).body, endpointBefore);
    // The newest token can.
    const byNewest = await call(rotated.body.token, 'POST', '/webhook-endpoint/rotate-secret/', {});
    assert.equal(byNewest.status, 201, JSON.stringify(byNewest.body));
  });
});

describe('events: list and redeliver', () => {
  it('pages newest first; events recorded between pages never shift a later page', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.unshift((await call(b.token, 'POST', '/webhook-endpoint/test/')).body.event_id);
      t.clock.advance(1000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await call(
        b.token,
        'GET',
        `/events/?type=ping&limit=2${cursor ? `&starting_after=${cursor}` : ''}`,
      );
      assert.equal(page.status, 200, JSON.stringify(page.body));
      seen.push(...page.body.data.map((event: { event_id: string }) => event.event_id));
      // Another event arrives while the integrator pages.
      await call(b.token, 'POST', '/webhook-endpoint/test/');
      if (!page.body.has_more) break;
      cursor = page.body.data.at(-1).event_id;
    }
    assert.deepEqual(seen.slice(0, 2), made.slice(0, 2));
    assert.deepEqual(seen, made.concat(seen.slice(5)).slice(0, seen.length));
    assert.deepEqual(new Set(seen).size, seen.length, 'no event twice');
    assert.ok(
      made.every((id) => seen.includes(id)),
      'every event once',
    );
    // B has no URL: its events are kept, not sent.
    const listed = await call(
      b.token,
      'GET',
      `/events/?since=${encodeURIComponent(t.clock.now().toISOString())}`,
    );
    assert.ok(
      listed.body.data.every(
        (event: { delivery: { status: string } }) => event.delivery.status === 'not_sent',
      ),
    );
  });

  it('B can neither list, page from nor redeliver A’s events', async () => {
    const aEvents = (await call(a.token, 'GET', '/events/?limit=100')).body.data;
    const bEvents = (await call(b.token, 'GET', '/events/?limit=100')).body.data;
    const aIds = new Set(aEvents.map((event: { event_id: string }) => event.event_id));
    assert.ok(aIds.size > 0);
    assert.ok(bEvents.every((event: { event_id: string }) => !aIds.has(event.event_id)));
    const aEvent = aEvents[0].event_id;
    assertError(
      await call(b.token, 'GET', `/events/?starting_after=${aEvent}`),
      400,
      'invalid_request',
      /No event/,
    );
    assertError(await call(b.token, 'POST', `/events/${aEvent}/redeliver/`), 404, 'not_found');
  });

  it('redelivers one of its own events with the same webhook-id; 409 without a URL', async () => {
    const [event] = (await call(a.token, 'GET', '/events/?type=ping&limit=1')).body.data;
    const before = receiver.received.length;
    const redelivered = await call(a.token, 'POST', `/events/${event.event_id}/redeliver/`);
    assert.equal(redelivered.status, 202, JSON.stringify(redelivered.body));
    assert.equal(redelivered.body.delivery.status, 'pending');
    await runJobs(t);
    assert.equal(receiver.received[before]?.headers['webhook-id'], event.event_id);
    const [bEvent] = (await call(b.token, 'GET', '/events/?limit=1')).body.data;
    assertError(
      await call(b.token, 'POST', `/events/${bEvent.event_id}/redeliver/`),
      409,
      'conflict',
      /no webhook URL/,
    );
    assertError(await call(a.token, 'POST', '/events/evt_nope/redeliver/'), 404, 'not_found');
  });
});

describe('payments: list and refund', () => {
  async function paidPayment(integrator: { id: string; token: string }) {
    const tenant = await newTenant(t, integrationApi(t, integrator));
    const paid = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    t.clock.advance(1000);
    return { tenant, paymentId: paid.body.payment_id as string };
  }

  it('lists only its own payments, newest first, by user and status, page by page', async () => {
    const first = await paidPayment(a);
    const second = await paidPayment(a);
    const other = await paidPayment(b);
    const listed = await call(a.token, 'GET', '/payments/?limit=100');
    assert.equal(listed.status, 200);
    const ids = listed.body.data.map((payment: { payment_id: string }) => payment.payment_id);
    assert.deepEqual(ids.slice(0, 2), [second.paymentId, first.paymentId]);
    assert.ok(!ids.includes(other.paymentId));
    assert.equal(listed.body.data[0].user_id, second.tenant.userId);
    assert.equal(listed.body.data[0].refunded, '0.00');
    const byUser = await call(a.token, 'GET', `/payments/?user_id=${first.tenant.userId}`);
    assert.deepEqual(
      byUser.body.data.map((payment: { payment_id: string }) => payment.payment_id),
      [first.paymentId],
    );
    assert.equal((await call(a.token, 'GET', '/payments/?status=failed')).body.data.length, 0);
    const page1 = await call(a.token, 'GET', '/payments/?limit=1');
    assert.equal(page1.body.has_more, true);
    await paidPayment(a);
    const page2 = await call(
      a.token,
      'GET',
      `/payments/?limit=1&starting_after=${page1.body.data[0].payment_id}`,
    );
    assert.equal(page2.body.data[0].payment_id, first.paymentId);
    assertError(
      await call(b.token, 'GET', `/payments/?starting_after=${first.paymentId}`),
      400,
      'invalid_request',
      /No payment/,
    );
    const badStatus = await call(a.token, 'GET', '/payments/?status=paid');
    assert.equal(badStatus.status, 400);
  });

  it('refunds idempotently with the operator’s rules; B cannot refund A’s payment', async () => {
    const { paymentId } = await paidPayment(a);
    const path = `/payments/${paymentId}/refunds/`;
    assertError(
      await call(b.token, 'POST', path, { amount: '10.00' }, { 'idempotency-key': 'r-1' }),
      404,
      'not_found',
    );
    const refunded = await call(a.token, 'POST', path, { amount: '100.00' }, { 'idempotency-key': 'r-1' });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    assert.equal(refunded.body.amount, '100.00');
    const replay = await call(a.token, 'POST', path, { amount: '100.00' }, { 'idempotency-key': 'r-1' });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.refund_id, refunded.body.refund_id);
    assertError(
      await call(a.token, 'POST', path, { amount: '50.00' }, { 'idempotency-key': 'r-1' }),
      422,
      'idempotency_mismatch',
    );
    const tooMuch = await call(a.token, 'POST', path, { amount: '5000.00' }, { 'idempotency-key': 'r-2' });
    assert.equal(tooMuch.status, 400);
    assert.ok(tooMuch.body.amount, JSON.stringify(tooMuch.body));
    const listed = (await call(a.token, 'GET', '/payments/?limit=100')).body.data.find(
      (payment: { payment_id: string }) => payment.payment_id === paymentId,
    );
    assert.equal(listed.refunded, '100.00');
    const [event] = (await call(a.token, 'GET', '/events/?type=payment_refunded&limit=1')).body.data;
    assert.equal(event.data.payment.payment_id, paymentId);
  });
});

describe('a local webhook URL in sandbox, without ALLOW_PRIVATE_WEBHOOK_HOSTS', () => {
  it('is refused with a message naming the flag and `rentpay listen`; nothing changes', async () => {
    const strict = await startTestApp();
    try {
      const integrator = await strict.createIntegrator({ ...UNLIMITED });
      const put = await strict.app.inject({
        method: 'PUT',
        url: '/api/third-party/webhook-endpoint/',
        headers: tokenHeader(integrator.token),
        payload: { url: 'http://127.0.0.1:3000/webhooks' },
      });
      assert.equal(put.statusCode, 400);
      const [message] = put.json().url as string[];
      assert.match(message!, /127\.0\.0\.1, which is private or loopback/);
      assert.match(message!, /rentpay listen --forward-to/);
      assert.match(message!, /ALLOW_PRIVATE_WEBHOOK_HOSTS=1/);
      const shown = await strict.app.inject({
        method: 'GET',
        url: '/api/third-party/webhook-endpoint/',
        headers: tokenHeader(integrator.token),
      });
      assert.equal(shown.json().url, null);
    } finally {
      await strict.close();
    }
  });
});

describe('the reference: OpenAPI webhooks and /docs', () => {
  it('lists every event type with the schema of its body; delivered bodies match their schema', async () => {
    const document = (await (await fetch(`${base}/api/third-party/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
    };
    assert.deepEqual(Object.keys(document.webhooks).sort(), Object.keys(EVENT_TYPES).sort());
    for (const path of [
      '/api/third-party/webhook-endpoint/',
      '/api/third-party/events/',
      '/api/third-party/payments/',
    ]) {
      assert.ok(document.paths[path], path);
    }
    const schema = document.webhooks.payment_refunded!.post.requestBody.content['application/json']!
      .schema as {
      properties: { data: { properties: Record<string, unknown> } };
    };
    assert.deepEqual(Object.keys(schema.properties.data.properties).sort(), [
      'action_required',
      'dispute',
      'email',
      'payment',
      'payment_reference',
      'refund',
      'retry_on',
      'user_id',
    ]);
    // Every body delivered in this file, checked against the schema the reference shows.
    assert.ok(receiver.received.length > 3);
    for (const delivery of receiver.received) {
      const body = JSON.parse(delivery.body) as { type: EventType };
      assert.ok(Value.Check(webhookBodySchema(body.type), body), `${body.type}: ${delivery.body}`);
    }
    const events = (await call(a.token, 'GET', '/events/?limit=100')).body.data as {
      type: EventType;
      created_at: string;
      data: unknown;
    }[];
    for (const event of events) {
      const body = { type: event.type, timestamp: event.created_at, data: event.data };
      assert.ok(Value.Check(webhookBodySchema(event.type), body), JSON.stringify(body));
    }
  });

  it('/docs is titled for rentpay and links the guides, which are served', async () => {
    const page = await (await fetch(`${base}/docs/`)).text();
    assert.match(page, /<title>rentpay API reference<\/title>/);
    const document = await (await fetch(`${base}/api/third-party/openapi.json`)).json();
    assert.match(document.info.description, /\[Webhook events: .*\]\(\/docs\/guides\/webhook-events\.md\)/);
    const guide = await fetch(`${base}/docs/guides/webhook-events.md`);
    assert.equal(guide.status, 200);
    assert.match(guide.headers.get('content-type') ?? '', /^text\/markdown/);
    assert.match(await guide.text(), /^# Webhook events/);
    const unknown = await fetch(`${base}/docs/guides/..%2Fpackage.json`);
    assert.equal(unknown.status, 404);
  });
});
