/**
 * `POST /api/operator/webhooks/retry-pending` and `rentpay webhooks retry-pending`: after a receiver's outage,
 * every pending delivery (of one integrator, or all) is attempted now with the same webhook-id, instead of after
 * the rest of its retry schedule. The fake clock stands still throughout, so nothing is attempted because it fell
 * due.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordEvent } from '../../src/webhooks/record-event.ts';
import { UNLIMITED } from '../support/api-client.ts';
import { OPERATOR_TOKEN, runCli, runJobs, startTestApp, type TestApp } from '../support/helpers.ts';
import { Receiver, verify } from '../support/webhook-receiver.ts';

const DATA = {
  payment: { payment_id: 'pay_test', status: 'succeeded', updated_at: '2026-03-01T09:00:00.000Z' },
  user_id: 7,
  email: 'jane@example.com',
  payment_reference: 'TEN-7',
};

describe('webhooks retry-pending', () => {
  let t: TestApp;
  let down: Receiver;
  let up: Receiver;
  let a: { id: string; webhookSecret: string };
  let b: { id: string; webhookSecret: string };
  let env: Record<string, string>;

  before(async () => {
    down = await Receiver.start();
    up = await Receiver.start();
    t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
    a = await t.createIntegrator({ ...UNLIMITED, webhook_url: down.url });
    b = await t.createIntegrator({ ...UNLIMITED, webhook_url: up.url });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    env = {
      RENTPAY_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
    };
  });
  after(async () => {
    await t?.close();
    await down?.close();
    await up?.close();
  });

  const record = (integratorId: string) =>
    t.db.transaction((tx) => recordEvent(tx, t.clock, integratorId, 'payment_success', DATA));
  const operator = (payload: unknown, token = OPERATOR_TOKEN) =>
    t.app.inject({
      method: 'POST',
      url: '/api/operator/webhooks/retry-pending',
      headers: { authorization: `Bearer ${token}` },
      payload: payload as object,
    });
  const pendingOf = async (integratorId: string) =>
    (
      await t.db.query<{ event_id: string }>(
        "SELECT event_id FROM webhook_deliveries WHERE integrator_id = $1 AND status = 'pending' ORDER BY event_id",
        [integratorId],
      )
    ).map((row) => row.event_id);

  it('sends an integrator’s pending deliveries now, with their webhook-ids, and leaves others’ alone', async () => {
    down.respond = () => ({ status: 503, body: 'down for maintenance' });
    up.respond = () => ({ status: 500, body: 'not yet' });
    const aEvents = [await record(a.id), await record(a.id), await record(a.id)];
    const bEvent = await record(b.id);
    assert.equal(await runJobs(t), 4);
    assert.deepEqual(await pendingOf(a.id), [...aEvents].sort());
    assert.deepEqual(await pendingOf(b.id), [bEvent]);
    assert.equal(await runJobs(t), 0, 'the next attempts are minutes away, and the clock stands still');

    down.respond = () => ({ status: 200, body: 'ok' });
    const answer = await operator({ integrator_id: a.id });
    assert.equal(answer.statusCode, 202, answer.body);
    assert.deepEqual(answer.json(), { count: 3 });
    assert.equal(await runJobs(t), 3);
    assert.deepEqual(await pendingOf(a.id), []);
    const second = down.received.slice(3);
    assert.deepEqual(
      second.map((r) => r.headers['webhook-id']).sort(),
      [...aEvents].sort(),
      'same webhook-ids',
    );
    for (const received of second) verify(a.webhookSecret, received, t.clock.now());
    assert.deepEqual(await pendingOf(b.id), [bEvent], 'B’s delivery keeps its schedule');
    assert.equal(up.received.length, 1);
  });

  it('an attempt under way when it runs is not moved, but if it fails its next attempt is made at once', async () => {
    let answer: (status: number) => void = () => undefined;
    down.respond = () =>
      new Promise((resolve) => {
        answer = (status) => resolve({ status, body: 'still down' });
      });
    const event = await record(a.id);
    const attempt = runJobs(t);
    await down.waitFor(down.received.length + 1);
    const during = await operator({ integrator_id: a.id });
    assert.deepEqual(during.json(), { count: 1 }, 'the delivery under way is counted');
    const arrived = down.received.length;
    down.respond = () => ({ status: 503, body: 'down again' });
    answer(503);
    assert.equal(
      await attempt,
      2,
      'the attempt under way failed, and its next attempt was due at once (the clock stands still)',
    );
    assert.equal(down.received.length, arrived + 1);
    const [delivery] = await t.db.query<{ next_attempt_at: Date; retry_requested_at: Date | null }>(
      'SELECT next_attempt_at, retry_requested_at FROM webhook_deliveries WHERE event_id = $1',
      [event],
    );
    assert.ok(delivery!.next_attempt_at > t.clock.now(), 'after the immediate retry, the schedule again');
    assert.equal(delivery?.retry_requested_at, null, 'the mark is used once');
    down.respond = () => ({ status: 200, body: 'ok' });
    assert.deepEqual((await operator({ integrator_id: a.id })).json(), { count: 1 });
    assert.equal(await runJobs(t), 1);
    assert.deepEqual(await pendingOf(a.id), []);
  });

  it('without an integrator, every pending delivery; nothing pending counts 0', async () => {
    up.respond = () => ({ status: 200, body: 'ok' });
    const all = await operator({});
    assert.deepEqual(all.json(), { count: 1 });
    assert.equal(await runJobs(t), 1);
    assert.equal(up.received.length, 2);
    assert.deepEqual(await pendingOf(b.id), []);
    assert.deepEqual((await operator({})).json(), { count: 0 });
  });

  it('refuses an unknown integrator (404), a bad body (400) and a missing operator token (401), changing nothing', async () => {
    up.respond = () => ({ status: 500, body: 'again' });
    const event = await record(b.id);
    await runJobs(t);
    const [before] = await t.db.query<{ next_attempt_at: Date }>(
      'SELECT next_attempt_at FROM webhook_deliveries WHERE event_id = $1',
      [event],
    );
    const unknown = await operator({ integrator_id: 'int_nope' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error, 'not_found');
    const bad = await operator({ integrator_id: 5 });
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().integrator_id, bad.body);
    const misspelt = await operator({ integrator: b.id });
    assert.equal(misspelt.statusCode, 400, misspelt.body);
    assert.deepEqual(misspelt.json(), { non_field_errors: ['Unknown field "integrator".'] });
    assert.equal((await operator({}, 'rpo_wrong')).statusCode, 401);
    const [afterwards] = await t.db.query<{ next_attempt_at: Date }>(
      'SELECT next_attempt_at FROM webhook_deliveries WHERE event_id = $1',
      [event],
    );
    assert.deepEqual(afterwards, before);
    assert.equal(await runJobs(t), 0);
  });

  it('rentpay webhooks retry-pending [--integrator]', async () => {
    up.respond = () => ({ status: 200, body: 'ok' });
    const one = await runCli(['webhooks', 'retry-pending', '--integrator', b.id], env);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout.trim(), 'Attempting 1 pending deliveries now.');
    await runJobs(t);
    const json = await runCli(['webhooks', 'retry-pending', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { count: 0 });
    const unknown = await runCli(['webhooks', 'retry-pending', '--integrator', 'int_nope'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No integrator int_nope/);
  });
});
