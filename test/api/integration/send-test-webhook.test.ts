import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, send, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { count } from '../../support/payment-client.ts';
import { Receiver, verify } from '../../support/webhook-receiver.ts';

const TEST = '/api/third-party/webhook-endpoint/test/';

describe('POST /api/third-party/webhook-endpoint/test/ (sendTestWebhook)', () => {
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

  const sendTest = (token: string, body?: object): Promise<Answer> =>
    send(t, { method: 'POST', url: TEST, headers: tokenHeader(token), ...(body ? { payload: body } : {}) });
  const events = (token: string) =>
    send(t, { method: 'GET', url: '/api/third-party/events/?type=ping', headers: tokenHeader(token) });
  const deliveriesOf = (eventId: string) =>
    receiver.received.filter((r) => r.headers['webhook-id'] === eventId);

  it('202 {event_id}: a ping with data {integrator_id}, delivered signed and listed as delivered', async () => {
    const { id, token, webhookSecret } = await t.createIntegrator({
      ...UNLIMITED,
      webhook_url: receiver.url,
    });
    const answer = await sendTest(token);
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body), ['event_id']);
    assert.match(answer.body.event_id, /^evt_[A-Za-z0-9]+$/);
    await runJobs(t);
    const [delivered, ...more] = deliveriesOf(answer.body.event_id);
    assert.deepEqual(more, []);
    const body = verify(webhookSecret, delivered!, t.clock.now());
    assert.deepEqual(body, {
      type: 'ping',
      timestamp: t.clock.now().toISOString(),
      data: { integrator_id: id },
    });
    assert.deepEqual((await events(token)).body.data, [
      {
        event_id: answer.body.event_id,
        type: 'ping',
        created_at: t.clock.now().toISOString(),
        data: { integrator_id: id },
        delivery: { status: 'delivered', attempts: 1 },
      },
    ]);
  });

  it('202 with an empty JSON body too; without a URL the ping is recorded and listed, not sent', async () => {
    const { token } = await t.createIntegrator(UNLIMITED);
    const answer = await sendTest(token, {});
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    await runJobs(t);
    assert.deepEqual(deliveriesOf(answer.body.event_id), []);
    const [listed] = (await events(token)).body.data;
    assert.deepEqual(
      [listed.event_id, listed.delivery],
      [answer.body.event_id, { status: 'not_sent', attempts: 0 }],
    );
  });

  it('the ping is the caller’s: another integrator does not see it', async () => {
    const a = await t.createIntegrator(UNLIMITED);
    const b = await t.createIntegrator(UNLIMITED);
    const { event_id } = (await sendTest(a.token)).body;
    assert.deepEqual((await events(b.token)).body, { data: [], has_more: false });
    assert.equal((await events(a.token)).body.data[0].event_id, event_id);
  });

  it('401 with the Bearer scheme; no event is recorded', async () => {
    const { token } = await t.createIntegrator(UNLIMITED);
    const before = await count(t, 'events');
    const answer = await send(t, {
      method: 'POST',
      url: TEST,
      headers: { authorization: `Bearer ${token}` },
    });
    assertError(answer, 401, 'unauthorized', /^Unsupported authorization scheme "Bearer"\./);
    assert.equal(await count(t, 'events'), before);
  });
});
