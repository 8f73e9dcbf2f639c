import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, send, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { Receiver } from '../../support/webhook-receiver.ts';

describe('POST /api/third-party/events/{event_id}/redeliver/ (redeliverEvent)', () => {
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

  const call = (
    token: string,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: object,
  ): Promise<Answer> =>
    send(t, {
      method,
      url: `/api/third-party${path}`,
      headers: tokenHeader(token),
      ...(body ? { payload: body } : {}),
    });
  const redeliver = (token: string, eventId: string) => call(token, 'POST', `/events/${eventId}/redeliver/`);
  /** A ping of the integrator, recorded (and delivered, when it has a URL); its event id. */
  async function ping(token: string): Promise<string> {
    const answer = await call(token, 'POST', '/webhook-endpoint/test/');
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    await runJobs(t);
    return answer.body.event_id;
  }
  const deliveriesOf = (eventId: string) =>
    receiver.received.filter((r) => r.headers['webhook-id'] === eventId);

  it('202: the event, pending again; it is sent once more with the same webhook-id and body', async () => {
    const { id, token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    const eventId = await ping(token);
    const [first] = deliveriesOf(eventId);
    t.clock.advance(60_000);
    const answer = await redeliver(token, eventId);
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    const created = new Date(t.clock.now().getTime() - 60_000).toISOString();
    assert.deepEqual(answer.body, {
      event_id: eventId,
      type: 'ping',
      created_at: created,
      data: { integrator_id: id },
      delivery: { status: 'pending', attempts: 1 },
    });
    await runJobs(t);
    const deliveries = deliveriesOf(eventId);
    assert.equal(deliveries.length, 2);
    assert.equal(deliveries[1]!.body, first!.body);
    const [listed] = (await call(token, 'GET', '/events/?limit=1')).body.data;
    assert.deepEqual(listed, { ...answer.body, delivery: { status: 'delivered', attempts: 2 } });
  });

  it('409 when the integrator has no URL, or its endpoint is disabled by a 410; nothing is sent', async () => {
    const { id, token } = await t.createIntegrator(UNLIMITED);
    const unsent = await ping(token);
    assertError(
      await redeliver(token, unsent),
      409,
      'conflict',
      new RegExp(`^Integrator ${id} has no webhook URL; set one first\\.$`),
    );
    assert.equal(
      (await call(token, 'PUT', '/webhook-endpoint/', { url: `${receiver.url}/gone` })).status,
      200,
    );
    receiver.respond = () => ({ status: 410 });
    try {
      const gone = await ping(token);
      assert.equal(deliveriesOf(gone).length, 1);
      assertError(
        await redeliver(token, gone),
        409,
        'conflict',
        new RegExp(`^The webhook endpoint of integrator ${id} is disabled \\(it answered 410 Gone\\);`),
      );
      await runJobs(t);
      assert.equal(deliveriesOf(gone).length, 1);
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
    }
    assert.deepEqual(deliveriesOf(unsent), []);
  });

  it('400 for an id that is not an event id; 404 for an unknown one', async () => {
    const { token } = await t.createIntegrator(UNLIMITED);
    assertError(
      await redeliver(token, 'not-an-event'),
      400,
      'invalid_request',
      /^Invalid params: event_id: Enter an event id: "evt_" followed by letters and digits\.$/,
    );
    assertError(
      await redeliver(token, 'evt_nope'),
      404,
      'not_found',
      /^No event evt_nope\. List yours with GET \/api\/third-party\/events\/\.$/,
    );
  });

  it('another integrator’s event is 404, as an unknown one, and is not sent', async () => {
    const owner = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    const stranger = await t.createIntegrator({ ...UNLIMITED, webhook_url: `${receiver.url}/stranger` });
    const eventId = await ping(owner.token);
    assertError(
      await redeliver(stranger.token, eventId),
      404,
      'not_found',
      new RegExp(`^No event ${eventId}\\. List yours`),
    );
    await runJobs(t);
    assert.equal(deliveriesOf(eventId).length, 1);
  });

  it('401 with an unknown token; nothing is sent', async () => {
    const { token } = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    const eventId = await ping(token);
    const answer = await redeliver(`rp_sandbox_${'q'.repeat(40)}`, eventId);
    assertError(answer, 401, 'unauthorized', /^Invalid or expired token\./);
    await runJobs(t);
    assert.equal(deliveriesOf(eventId).length, 1);
  });
});
