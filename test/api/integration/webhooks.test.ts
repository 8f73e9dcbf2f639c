import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/platform/db/db.ts';
import { enqueueJob } from '../../../src/platform/jobs/queue.ts';
import { Worker } from '../../../src/platform/jobs/worker.ts';
import { createLogger } from '../../../src/platform/log/logger.ts';
import { webhookDeliverJob, webhookDeliveryHandler } from '../../../src/webhooks/jobs/webhook-deliver.ts';
import { type EventType, recordEvent } from '../../../src/webhooks/record-event.ts';
import { MAX_ATTEMPTS, MAX_JITTER_MS, WEBHOOK_RETRY_DELAYS_MS } from '../../../src/webhooks/schedule.ts';
import { type Answer, assertError, integrationApi, send, UNLIMITED } from '../../support/api-client.ts';
import {
  OPERATOR_TOKEN,
  runCli,
  runJobs,
  startTestApp,
  TEST_DATABASE_URL,
  type TestApp,
} from '../../support/helpers.ts';
import { cardToken, newTenant, PAN } from '../../support/payment-client.ts';
import { Receiver, type Reply, verify } from '../../support/webhook-receiver.ts';

interface Setup {
  t: TestApp;
  receiver: Receiver;
  integrator: { id: string; token: string; webhookSecret: string };
  close(): Promise<void>;
}

/** An app whose one integrator's webhook URL is a local receiver (ALLOW_PRIVATE_WEBHOOK_HOSTS=1). */
async function start(): Promise<Setup> {
  const receiver = await Receiver.start();
  const t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
  const integrator = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
  return {
    t,
    receiver,
    integrator,
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}

const PAYMENT_DATA = {
  payment: { payment_id: 'pay_test', status: 'succeeded', updated_at: '2026-03-01T09:00:00.000Z' },
  user_id: 7,
  email: 'jane@example.com',
  payment_reference: 'TEN-7',
};

function record(
  t: TestApp,
  integratorId: string,
  type: EventType = 'payment_success',
  data: Record<string, unknown> = PAYMENT_DATA,
): Promise<string> {
  return t.db.transaction((tx) => recordEvent(tx, t.clock, integratorId, type, data));
}

interface DeliveryRow {
  status: string;
  round_attempts: number;
  attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
}

async function delivery(t: TestApp, eventId: string): Promise<DeliveryRow> {
  const [row] = await t.db.query<DeliveryRow>(
    'SELECT status, round_attempts, attempts, next_attempt_at, last_error FROM webhook_deliveries WHERE event_id = $1',
    [eventId],
  );
  assert.ok(row, `no delivery for ${eventId}`);
  return row;
}

async function storedPreviousSecret(t: TestApp, integratorId: string): Promise<string | null | undefined> {
  const [row] = await t.db.query<{ previous_secret: string | null }>(
    'SELECT previous_secret FROM webhook_endpoints WHERE integrator_id = $1',
    [integratorId],
  );
  return row?.previous_secret;
}

function operator(t: TestApp, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Answer> {
  return send(t, {
    method,
    url: `/api/operator${url}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** The longest a retry may come after its scheduled delay. */
const jitterOf = (delay: number) => Math.min(delay * 0.1, MAX_JITTER_MS);

describe('webhooks: delivery', () => {
  let s: Setup;
  before(async () => {
    s = await start();
  });
  after(() => s.close());

  it('a real card payment reaches the endpoint as payment_success, signed, verified by standardwebhooks', async () => {
    const { t, receiver, integrator } = s;
    const api = integrationApi(t, integrator);
    const tenant = await newTenant(t, api);
    const paid = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    const [event] = await t.db.query<{ id: string }>(
      "SELECT id FROM events WHERE type = 'payment_success' AND data->'payment'->>'payment_id' = $1",
      [paid.body.payment_id],
    );
    assert.ok(event, 'the payment recorded its event');
    const before = receiver.received.length;
    await runJobs(t);
    const arrived = receiver.received.slice(before).filter((r) => r.headers['webhook-id'] === event.id);
    assert.equal(arrived.length, 1);
    const [request] = arrived;
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.equal(request!.headers['webhook-timestamp'], String(Math.floor(t.clock.now().getTime() / 1000)));
    // biome-ignore lint/suspicious/noExplicitAny: a JSON body, asserted on field by field
    const body = verify(integrator.webhookSecret, request!, t.clock.now()) as Record<string, any>;
    assert.deepEqual(Object.keys(body).sort(), ['data', 'timestamp', 'type']);
    assert.equal(body.type, 'payment_success');
    assert.equal(body.timestamp, t.clock.now().toISOString());
    assert.deepEqual(Object.keys(body.data).sort(), ['email', 'payment', 'payment_reference', 'user_id']);
    assert.equal(body.data.email, tenant.email);
    assert.equal(body.data.user_id, tenant.userId);
    const { next_action: _, ...payment } = paid.body;
    assert.deepEqual(
      body.data.payment,
      { ...payment, receipt_url: `/api/third-party/payments/${payment.payment_id}/receipt.pdf` },
      'the Payment, as the Client API answered it, and where its receipt is',
    );
    assert.ok(body.data.payment.updated_at, 'the payload carries updated_at for ordering');

    const shown = await operator(t, 'GET', `/webhooks/events/${event.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.status, 'delivered');
    assert.equal(shown.body.payload, request!.body, 'the log shows the exact body sent');
    assert.equal(shown.body.attempts.length, 1);
    const [attempt] = shown.body.attempts;
    assert.equal(attempt.status_code, 200);
    assert.equal(attempt.outcome, 'delivered');
    assert.equal(attempt.response_body, 'ok');
    assert.equal(attempt.url, receiver.url);
    assert.ok(attempt.latency_ms >= 0);
  });

  it('every event type is delivered with its data', async () => {
    const { t, receiver, integrator } = s;
    const types: [EventType, Record<string, unknown>][] = [
      ['payment_success', PAYMENT_DATA],
      ['payment_failed', PAYMENT_DATA],
      ['payment_refunded', PAYMENT_DATA],
      [
        'schedule_created',
        {
          schedule: { schedule_id: 'sch_1', updated_at: 'x' },
          user_id: 7,
          email: 'e',
          payment_reference: 'r',
        },
      ],
      [
        'schedule_paused',
        { schedule: { schedule_id: 'sch_1' }, user_id: 7, email: 'e', payment_reference: 'r' },
      ],
      [
        'schedule_resumed',
        { schedule: { schedule_id: 'sch_1' }, user_id: 7, email: 'e', payment_reference: 'r' },
      ],
      [
        'schedule_canceled',
        { schedule: { schedule_id: 'sch_1' }, user_id: 7, email: 'e', payment_reference: 'r' },
      ],
      [
        'document_failed',
        { user_id: 7, payment_reference: 'r', document: { state: 'failed' }, failure_reason: 'x' },
      ],
    ];
    const ids = new Map<string, [EventType, Record<string, unknown>]>();
    for (const [type, data] of types) ids.set(await record(t, integrator.id, type, data), [type, data]);
    const before = receiver.received.length;
    assert.equal(await runJobs(t), types.length);
    const arrived = receiver.received.slice(before);
    assert.equal(arrived.length, types.length);
    for (const request of arrived) {
      const [type, data] = ids.get(String(request.headers['webhook-id']))!;
      assert.deepEqual(verify(integrator.webhookSecret, request, t.clock.now()), {
        type,
        timestamp: t.clock.now().toISOString(),
        data,
      });
    }
  });

  it('a failing endpoint gets the same webhook-id and body on every attempt until it answers 2xx', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    const before = receiver.received.length;
    receiver.respond = (_r, index) => (index - before < 3 ? { status: 500, body: 'down' } : { status: 204 });
    await runJobs(t);
    for (let n = 1; n <= 3; n++) {
      const row = await delivery(t, eventId);
      assert.equal(row.status, 'pending');
      assert.equal(row.last_error, 'HTTP 500.');
      t.clock.set(row.next_attempt_at!);
      await runJobs(t);
    }
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const arrived = receiver.received.slice(before);
    assert.equal(arrived.length, 4);
    assert.deepEqual(new Set(arrived.map((r) => r.headers['webhook-id'])), new Set([eventId]));
    assert.equal(new Set(arrived.map((r) => r.body)).size, 1, 'the same body every time');
    assert.equal(new Set(arrived.map((r) => r.headers['webhook-timestamp'])).size, 4, 'signed when sent');
    for (const request of arrived) {
      verify(
        integrator.webhookSecret,
        request,
        new Date(Number(request.headers['webhook-timestamp']) * 1000),
      );
    }
    assert.equal((await delivery(t, eventId)).status, 'delivered');
  });

  it('a 3xx is a failure: the redirect is not followed and the next attempt comes on schedule', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    const before = receiver.received.length;
    receiver.respond = (r) =>
      r.path === '/hooks'
        ? { status: 302, headers: { location: '/elsewhere' }, body: 'moved' }
        : { status: 200 };
    const sent = t.clock.now();
    await runJobs(t);
    receiver.respond = () => ({ status: 200, body: 'ok' });
    assert.deepEqual(
      receiver.received.slice(before).map((r) => r.path),
      ['/hooks'],
      'nothing reached the redirect target',
    );
    const row = await delivery(t, eventId);
    assert.equal(row.status, 'pending');
    assert.match(row.last_error!, /^HTTP 302: redirects are not followed/);
    const delay = new Date(row.next_attempt_at!).getTime() - sent.getTime();
    assert.ok(delay >= 5_000 && delay <= 5_500, `next attempt after ${delay} ms`);
    const shown = await operator(t, 'GET', `/webhooks/events/${eventId}`);
    assert.equal(shown.body.attempts[0].status_code, 302);
    assert.equal(shown.body.attempts[0].outcome, 'retry');
    assert.equal(shown.body.attempts[0].response_body, 'moved');
    t.clock.set(row.next_attempt_at!);
    await runJobs(t);
    assert.equal((await delivery(t, eventId)).status, 'delivered');
  });

  it('429 and 503 honour Retry-After (seconds or a date) but never retry before the schedule', async () => {
    const { t, receiver, integrator } = s;
    const cases: [Reply, (sent: Date) => number][] = [
      [{ status: 429, headers: { 'retry-after': '120' } }, () => 120_000],
      [
        {
          status: 503,
          headers: { 'retry-after': new Date(Date.parse('2026-03-01T09:00:00Z')).toUTCString() },
        },
        () => 5_000,
      ],
      [{ status: 429, headers: { 'retry-after': '1' } }, () => 5_000],
      [{ status: 429 }, () => 5_000],
      [{ status: 500, headers: { 'retry-after': '3600' } }, () => 5_000],
    ];
    for (const [answer, expected] of cases) {
      const eventId = await record(t, integrator.id);
      receiver.respond = () => answer;
      const sent = t.clock.now();
      await runJobs(t);
      const row = await delivery(t, eventId);
      const delay = new Date(row.next_attempt_at!).getTime() - sent.getTime();
      const floor = expected(sent);
      assert.ok(
        delay >= floor && delay <= Math.max(floor, 5_000 + jitterOf(5_000)),
        `${JSON.stringify(answer)}: next attempt after ${delay} ms, expected ${floor}`,
      );
    }
    // An HTTP date an hour ahead (HTTP dates have whole seconds).
    t.clock.set(new Date(Math.ceil(t.clock.now().getTime() / 1000) * 1000));
    const eventId = await record(t, integrator.id);
    const inAnHour = new Date(t.clock.now().getTime() + 3_600_000).toUTCString();
    receiver.respond = () => ({ status: 503, headers: { 'retry-after': inAnHour } });
    await runJobs(t);
    const row = await delivery(t, eventId);
    assert.equal(new Date(row.next_attempt_at!).getTime() - t.clock.now().getTime(), 3_600_000);
    assert.equal(row.last_error, `HTTP 503, Retry-After: ${inAnHour}.`);
    receiver.respond = () => ({ status: 200, body: 'ok' });
    t.clock.advance(3_600_000);
    await runJobs(t);
  });

  it('keeps the first 1 KB of an answer in the delivery log', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    receiver.respond = () => ({ status: 200, body: `${'é'.repeat(600)}${'x'.repeat(5000)}` });
    await runJobs(t);
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const shown = await operator(t, 'GET', `/webhooks/events/${eventId}`);
    const body: string = shown.body.attempts[0].response_body;
    assert.equal(Buffer.byteLength(body.replace(/\uFFFD$/, '')) <= 1024, true);
    assert.ok(body.startsWith('é'.repeat(512)));
    assert.ok(!body.includes('x'));
  });

  it('a 2xx whose status came in time counts even if its body never ends', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    receiver.respond = () => ({ status: 200, body: 'accepted, still writing', stallBody: true });
    const worker = new Worker({
      db: t.db,
      clock: t.clock,
      log: createLogger('silent'),
      handlers: { [webhookDeliverJob.kind]: webhookDeliveryHandler({ allowPrivate: true, timeoutMs: 300 }) },
    });
    try {
      await worker.drain();
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
    }
    const row = await delivery(t, eventId);
    assert.equal(row.status, 'delivered');
    const [attempt] = await t.db.query<{ status_code: number; response_body: string }>(
      'SELECT status_code, response_body FROM webhook_attempts WHERE event_id = $1',
      [eventId],
    );
    assert.deepEqual(attempt, { status_code: 200, response_body: 'accepted, still writing' });
  });

  it('a 2xx that comes after the time limit is a failure', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    receiver.respond = () => ({ status: 200, delayMs: 600 });
    const worker = new Worker({
      db: t.db,
      clock: t.clock,
      log: createLogger('silent'),
      handlers: { [webhookDeliverJob.kind]: webhookDeliveryHandler({ allowPrivate: true, timeoutMs: 200 }) },
    });
    await worker.drain();
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const row = await delivery(t, eventId);
    assert.equal(row.status, 'pending');
    assert.equal(row.last_error, 'No answer within 0.2 s.');
    t.clock.set(row.next_attempt_at!);
    await runJobs(t);
    assert.equal((await delivery(t, eventId)).status, 'delivered');
  });
  it('an attempt that keeps throwing (here a broken secret) fails the delivery with its reason after the job’s last try', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    const [row] = await t.db.query<{ secret: string }>(
      'SELECT webhook_secret AS secret FROM integrators WHERE id = $1',
      [integrator.id],
    );
    const secret = row!.secret;
    await t.db.query("UPDATE integrators SET webhook_secret = 'whsec_' WHERE id = $1", [integrator.id]);
    const before = receiver.received.length;
    try {
      // An early try throws and is retried by the job queue; the delivery stays pending meanwhile.
      await runJobs(t);
      assert.equal((await delivery(t, eventId)).status, 'pending');
      await t.db.query(
        "UPDATE jobs SET attempts = max_attempts - 1, run_at = $1 WHERE kind = $2 AND status = 'pending'",
        [t.clock.now(), webhookDeliverJob.kind],
      );
      await runJobs(t);
      const failed = await delivery(t, eventId);
      assert.equal(failed.status, 'failed');
      assert.match(failed.last_error ?? '', /^Could not be sent: A webhook secret cannot be empty/);
      assert.equal(receiver.received.length, before, 'nothing was sent');
    } finally {
      await t.db.query('UPDATE integrators SET webhook_secret = $2 WHERE id = $1', [integrator.id, secret]);
    }
  });
});

describe('webhooks: the retry schedule, failure and redelivery', () => {
  let s: Setup;
  before(async () => {
    s = await start();
  });
  after(() => s.close());

  it('an endpoint down for the whole schedule: attempts at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed; redelivered once it is up, same webhook-id', async () => {
    const { t, receiver, integrator } = s;
    const port = receiver.port;
    await receiver.close();
    const start = t.clock.now();
    const eventId = await record(t, integrator.id);
    assert.equal(await runJobs(t), 1);
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      const row = await delivery(t, eventId);
      assert.equal(row.status, 'pending');
      assert.equal(row.round_attempts, n);
      assert.equal(row.last_error, 'The webhook host refused the connection.');
      const due = new Date(row.next_attempt_at!).getTime();
      const scheduled = WEBHOOK_RETRY_DELAYS_MS[n - 1]!;
      const delay = due - t.clock.now().getTime();
      assert.ok(delay >= scheduled && delay <= scheduled + jitterOf(scheduled), `retry ${n}: ${delay} ms`);
      t.clock.set(new Date(due - 1));
      assert.equal(await runJobs(t), 0, `retry ${n} not before its time`);
      t.clock.set(new Date(due));
      assert.equal(await runJobs(t), 1, `retry ${n} at its time`);
    }
    const failed = await delivery(t, eventId);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.round_attempts, MAX_ATTEMPTS);
    assert.equal(failed.next_attempt_at, null);
    t.clock.advance(7 * 24 * 3_600_000);
    assert.equal(await runJobs(t), 0, 'nothing more is tried');

    const listed = await operator(t, 'GET', `/webhooks/events?status=failed&since=${start.toISOString()}`);
    assert.deepEqual(
      listed.body.data.map((e: { event_id: string }) => e.event_id),
      [eventId],
    );
    const shown = await operator(t, 'GET', `/webhooks/events/${eventId}`);
    assert.equal(shown.body.attempts.length, MAX_ATTEMPTS);
    assert.deepEqual(
      shown.body.attempts.map((a: { outcome: string }) => a.outcome),
      [...Array(MAX_ATTEMPTS - 1).fill('retry'), 'failed'],
    );
    const days = (new Date(shown.body.attempts.at(-1).attempted_at).getTime() - start.getTime()) / 3_600_000;
    assert.ok(days >= 27.5 && days < 27.7, `the last attempt ${days} h after the first`);

    await receiver.listen(port);
    const redelivered = await operator(t, 'POST', '/webhooks/redeliver', {
      failed_since: start.toISOString(),
    });
    assert.equal(redelivered.status, 202);
    assert.deepEqual(redelivered.body, { redelivered: 1 });
    assert.equal((await delivery(t, eventId)).status, 'pending');
    await runJobs(t);
    assert.deepEqual(receiver.ids(), [eventId], 'the same webhook-id as every attempt before');
    verify(integrator.webhookSecret, receiver.received[0]!, t.clock.now());
    const done = await delivery(t, eventId);
    assert.equal(done.status, 'delivered');
    assert.equal(done.attempts, MAX_ATTEMPTS + 1);
    assert.equal(done.round_attempts, 1);
  });

  it('redelivers one event (delivered or failed) with the same webhook-id, on a new round', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    await runJobs(t);
    assert.equal((await delivery(t, eventId)).status, 'delivered');
    const again = await operator(t, 'POST', `/webhooks/events/${eventId}/redeliver`);
    assert.equal(again.status, 202);
    assert.equal(again.body.status, 'pending');
    await runJobs(t);
    assert.deepEqual(
      receiver.ids().filter((id) => id === eventId),
      [eventId, eventId],
    );
    assert.equal((await delivery(t, eventId)).attempts, 2);
    const missing = await operator(t, 'POST', '/webhooks/events/evt_nope/redeliver');
    assert.equal(missing.status, 404);
  });

  it('redelivering everything failed since a time works in batches: 2,500 failed deliveries all become pending once', async () => {
    const { t, integrator } = s;
    const since = t.clock.now();
    await t.db.query(
      `WITH e AS (
         INSERT INTO events (id, integrator_id, type, data, created_at)
         SELECT 'evt_bulk' || n, $1, 'payment_success', '{}'::jsonb, $2 FROM generate_series(1, 2500) AS n
         RETURNING id)
       INSERT INTO webhook_deliveries (event_id, integrator_id, status, round_attempts, attempts, failed_at,
                                       created_at, updated_at)
       SELECT e.id, $1, 'failed', 8, 8, $2, $2, $2 FROM e`,
      [integrator.id, since],
    );
    const answer = await operator(t, 'POST', '/webhooks/redeliver', { failed_since: since.toISOString() });
    assert.equal(answer.status, 202);
    assert.deepEqual(answer.body, { redelivered: 2500 });
    const [counts] = await t.db.query<{ pending: number; jobs: number }>(
      `SELECT count(*) FILTER (WHERE d.status = 'pending')::int AS pending, count(DISTINCT j.id)::int AS jobs
         FROM webhook_deliveries d LEFT JOIN jobs j ON j.id = d.job_id
        WHERE d.event_id LIKE 'evt_bulk%'`,
    );
    assert.deepEqual(counts, { pending: 2500, jobs: 2500 });
    const again = await operator(t, 'POST', '/webhooks/redeliver', { failed_since: since.toISOString() });
    assert.deepEqual(again.body, { redelivered: 0 });
    await t.db.query("DELETE FROM jobs WHERE payload->>'event_id' LIKE 'evt_bulk%'");
    await t.db.query(
      "UPDATE webhook_deliveries SET status = 'delivered', job_id = NULL, next_attempt_at = NULL, pending_since = NULL, delivered_at = $1 WHERE event_id LIKE 'evt_bulk%'",
      [since],
    );
  });

  it('a redelivery while an attempt of the event is under way is refused with 409 and changes nothing', async () => {
    const { t, receiver, integrator } = s;
    const eventId = await record(t, integrator.id);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.respond = async () => {
      await released;
      return { status: 200, body: 'ok' };
    };
    const before = receiver.received.length;
    const worker = new Worker({
      db: t.db,
      clock: t.clock,
      log: createLogger('silent'),
      handlers: { [webhookDeliverJob.kind]: webhookDeliveryHandler({ allowPrivate: true }) },
    });
    const drained = worker.drain();
    try {
      await receiver.waitFor(before + 1);
      const refused = await operator(t, 'POST', `/webhooks/events/${eventId}/redeliver`);
      assertError(refused, 409, 'conflict', /under way/);
    } finally {
      release();
      receiver.respond = () => ({ status: 200, body: 'ok' });
    }
    await drained;
    assert.equal((await delivery(t, eventId)).status, 'delivered');
    assert.equal(receiver.received.length, before + 1, 'sent once');
  });

  it('410 Gone disables the endpoint until the operator enables it; then failed deliveries can be redelivered', async () => {
    const { t, receiver, integrator } = s;
    const since = t.clock.now();
    const first = await record(t, integrator.id);
    receiver.respond = () => ({ status: 410, body: 'gone' });
    const before = receiver.received.length;
    await runJobs(t);
    assert.equal((await delivery(t, first)).status, 'failed');
    const endpoint = await operator(t, 'GET', `/integrators/${integrator.id}/webhook`);
    assert.equal(endpoint.body.state, 'disabled');
    assert.match(endpoint.body.disabled_reason, /^HTTP 410 Gone from /);

    const second = await record(t, integrator.id);
    await runJobs(t);
    assert.equal(receiver.received.length, before + 1, 'nothing is sent to a disabled endpoint');
    const skipped = await delivery(t, second);
    assert.equal(skipped.status, 'failed');
    assert.match(skipped.last_error!, /^The endpoint is disabled: HTTP 410 Gone/);
    const refused = await operator(t, 'POST', `/webhooks/events/${first}/redeliver`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'conflict');

    receiver.respond = () => ({ status: 200, body: 'ok' });
    const enabled = await operator(t, 'POST', `/integrators/${integrator.id}/webhook/enable`);
    assert.equal(enabled.body.state, 'enabled');
    assert.equal(enabled.body.failed, 2);
    const redelivered = await operator(t, 'POST', '/webhooks/redeliver', {
      failed_since: since.toISOString(),
      integrator_id: integrator.id,
    });
    assert.equal(redelivered.body.redelivered, 2);
    await runJobs(t);
    assert.equal((await delivery(t, first)).status, 'delivered');
    assert.equal((await delivery(t, second)).status, 'delivered');
  });
});

describe('webhooks: endpoints, secrets and the address rule', () => {
  it('events of an integrator without a webhook URL are kept and not sent; a URL set later does not replay them', async () => {
    const receiver = await Receiver.start();
    const t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
    try {
      const integrator = await t.createIntegrator({ name: 'No hooks' });
      const eventId = await record(t, integrator.id);
      const [jobs] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
      assert.equal(jobs!.n, 0);
      const listed = await operator(
        t,
        'GET',
        `/webhooks/events?integrator_id=${integrator.id}&status=not_sent`,
      );
      assert.equal(listed.body.data[0].event_id, eventId);
      const noUrl = await operator(t, 'POST', `/webhooks/events/${eventId}/redeliver`);
      assert.equal(noUrl.status, 409);

      const set = await operator(t, 'GET', `/integrators/${integrator.id}/webhook`);
      assert.equal(set.body.state, 'none');
      await send(t, {
        method: 'PATCH',
        url: `/api/operator/integrators/${integrator.id}`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        payload: { webhook_url: receiver.url },
      });
      await runJobs(t);
      assert.equal(receiver.received.length, 0, 'history is not replayed');
      const later = await record(t, integrator.id);
      await runJobs(t);
      assert.deepEqual(receiver.ids(), [later]);
      await operator(t, 'POST', `/webhooks/events/${eventId}/redeliver`);
      await runJobs(t);
      assert.deepEqual(receiver.ids(), [later, eventId], 'the operator can send an old event');

      // A delivery pending when the URL is removed fails without an attempt.
      const pending = await record(t, integrator.id);
      await send(t, {
        method: 'PATCH',
        url: `/api/operator/integrators/${integrator.id}`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        payload: { webhook_url: null },
      });
      await runJobs(t);
      assert.equal(receiver.received.length, 2);
      assert.equal((await delivery(t, pending)).last_error, 'The integrator has no webhook URL.');
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('after a secret rotation both secrets sign for 24 hours, then only the new one, and the old one is erased', async () => {
    const s = await start();
    const { t, receiver, integrator } = s;
    try {
      const rotated = await operator(t, 'POST', `/integrators/${integrator.id}/webhook-secret/rotate`);
      assert.equal(rotated.status, 201);
      const newSecret: string = rotated.body.webhook_secret;
      assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.notEqual(newSecret, integrator.webhookSecret);
      assert.equal(
        rotated.body.previous_secret_expires_at,
        new Date(t.clock.now().getTime() + 24 * 3_600_000).toISOString(),
      );
      await record(t, integrator.id);
      await runJobs(t);
      const during = receiver.received.at(-1)!;
      assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
      verify(integrator.webhookSecret, during, t.clock.now());
      verify(newSecret, during, t.clock.now());
      const shown = await operator(t, 'GET', `/integrators/${integrator.id}/webhook`);
      assert.equal(shown.body.previous_secret_expires_at, rotated.body.previous_secret_expires_at);
      assert.equal(await storedPreviousSecret(t, integrator.id), integrator.webhookSecret);

      t.clock.advance(24 * 3_600_000);
      await record(t, integrator.id);
      await runJobs(t);
      const afterwards = receiver.received.at(-1)!;
      assert.equal(String(afterwards.headers['webhook-signature']).split(' ').length, 1);
      verify(newSecret, afterwards, t.clock.now());
      assert.throws(
        () => verify(integrator.webhookSecret, afterwards, t.clock.now()),
        /No matching signature/,
      );
      assert.equal(await storedPreviousSecret(t, integrator.id), null, 'erased when its overlap ended');

      // Rotating again within the overlap ends the oldest secret at once: at most two sign.
      const third = (await operator(t, 'POST', `/integrators/${integrator.id}/webhook-secret/rotate`)).body;
      const fourth = (await operator(t, 'POST', `/integrators/${integrator.id}/webhook-secret/rotate`)).body;
      await record(t, integrator.id);
      await runJobs(t);
      const last = receiver.received.at(-1)!;
      verify(third.webhook_secret, last, t.clock.now());
      verify(fourth.webhook_secret, last, t.clock.now());
      assert.throws(() => verify(newSecret, last, t.clock.now()), /No matching signature/);
      const missing = await operator(t, 'POST', '/integrators/int_nope/webhook-secret/rotate');
      assert.equal(missing.status, 404);

      // The older rotation's erase job, due first, leaves the newer replaced secret to its own overlap.
      t.clock.advance(12 * 3_600_000);
      const fifth = (await operator(t, 'POST', `/integrators/${integrator.id}/webhook-secret/rotate`)).body;
      t.clock.advance(12 * 3_600_000);
      await runJobs(t);
      assert.equal(await storedPreviousSecret(t, integrator.id), fourth.webhook_secret);
      await record(t, integrator.id);
      await runJobs(t);
      verify(fourth.webhook_secret, receiver.received.at(-1)!, t.clock.now());
      t.clock.advance(12 * 3_600_000);
      await runJobs(t);
      assert.equal(await storedPreviousSecret(t, integrator.id), null);
      await record(t, integrator.id);
      await runJobs(t);
      const final = receiver.received.at(-1)!;
      verify(fifth.webhook_secret, final, t.clock.now());
      assert.throws(() => verify(fourth.webhook_secret, final, t.clock.now()), /No matching signature/);
      const rows = JSON.stringify(await t.db.query('SELECT * FROM webhook_endpoints'));
      for (const old of [integrator.webhookSecret, newSecret, third.webhook_secret, fourth.webhook_secret]) {
        assert.ok(!rows.includes(old), 'no replaced secret is stored after its overlap');
      }
    } finally {
      await s.close();
    }
  });

  it('without ALLOW_PRIVATE_WEBHOOK_HOSTS, private and loopback URLs are refused when set and at delivery', async () => {
    const receiver = await Receiver.start();
    const t = await startTestApp();
    try {
      const create = (webhook_url: string) =>
        send(t, {
          method: 'POST',
          url: '/api/operator/integrators',
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
          payload: { name: 'Hooks', webhook_url },
        });
      for (const url of [
        receiver.url,
        'http://localhost:9/h',
        'http://10.0.0.5/h',
        'http://[::1]/h',
        'http://169.254.169.254/latest',
      ]) {
        const refused = await create(url);
        assert.equal(refused.status, 400, url);
        assert.match(
          refused.body.webhook_url[0],
          /private or loopback; webhook URLs must be on a public host\. To receive webhooks on this machine, run `rentpay listen --forward-to .*ALLOW_PRIVATE_WEBHOOK_HOSTS=1/,
          url,
        );
      }
      const withCredentials = await create('https://user:pw@hooks.example/h');
      assert.deepEqual(withCredentials.body, { webhook_url: ['URLs with credentials are not allowed.'] });
      const ok = await create('https://hooks.example/h');
      assert.equal(ok.status, 201, 'a name that does not resolve now is checked at delivery');
      const patched = await send(t, {
        method: 'PATCH',
        url: `/api/operator/integrators/${ok.body.integrator_id}`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        payload: { webhook_url: 'http://127.0.0.1/h' },
      });
      assert.equal(patched.status, 400);

      // A URL whose host turns private after it was set (DNS can change): refused at delivery, nothing sent.
      await t.db.query('UPDATE integrators SET webhook_url = $2 WHERE id = $1', [
        ok.body.integrator_id,
        receiver.url,
      ]);
      const eventId = await record(t, ok.body.integrator_id);
      await runJobs(t);
      assert.equal(receiver.received.length, 0);
      const row = await delivery(t, eventId);
      assert.equal(row.status, 'pending');
      assert.equal(
        row.last_error,
        'The address 127.0.0.1 is private or loopback; webhooks must be on a public host.',
      );
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});

describe('webhooks: concurrency', () => {
  it('two workers over one database never send one event twice at once, even with two jobs for it', async () => {
    const s = await start();
    const { t, receiver, integrator } = s;
    const second: Db = TEST_DATABASE_URL ? await t.database.open() : t.db;
    try {
      receiver.respond = () => ({ status: 200, delayMs: Math.floor(Math.random() * 15) });
      const ids: string[] = [];
      for (let i = 0; i < 120; i++) {
        const id = await record(t, integrator.id);
        ids.push(id);
        // A second job for the same delivery, due at once (as a redelivery while one is pending makes).
        await enqueueJob(t.db, t.clock, webhookDeliverJob.kind, { event_id: id });
      }
      const worker = (db: Db, name: string) =>
        new Worker({
          db,
          clock: t.clock,
          log: createLogger('silent'),
          handlers: { [webhookDeliverJob.kind]: webhookDeliveryHandler({ allowPrivate: true }) },
          concurrency: 8,
          name,
        });
      const [a, b] = await Promise.all([worker(t.db, 'a').drain(), worker(second, 'b').drain()]);
      assert.equal(a + b, 240, 'every job ran once');
      assert.ok(a > 0 && b > 0, `both workers took part (${a}, ${b})`);
      assert.equal(receiver.concurrentDuplicates, 0, 'no event was in flight twice at once');
      assert.deepEqual([...receiver.ids()].sort(), [...ids].sort(), 'each event delivered exactly once');
      const [row] = await t.db.query<{ delivered: number; attempts: number }>(
        `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
                (SELECT count(*)::int FROM webhook_attempts) AS attempts
           FROM webhook_deliveries`,
      );
      assert.deepEqual(row, { delivered: 120, attempts: 120 });
    } finally {
      if (second !== t.db) await second.close();
      await s.close();
    }
  });
});

describe('webhooks: metrics, Operator API listing and the CLI', () => {
  let s: Setup;
  let url: string;
  let env: Record<string, string>;
  const events: string[] = [];
  before(async () => {
    s = await start();
    await s.t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = s.t.app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    env = { RENTPAY_URL: url, RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN };
    const { t, receiver, integrator } = s;
    events.push(await record(t, integrator.id, 'payment_success'));
    await runJobs(t);
    t.clock.advance(1000);
    receiver.respond = () => ({ status: 500, body: 'nope' });
    events.push(await record(t, integrator.id, 'payment_failed'));
    await runJobs(t);
    receiver.respond = () => ({ status: 200, body: 'ok' });
  });
  after(() => s.close());

  it('exports deliveries by outcome, attempt latency and the oldest pending event age', async () => {
    const { t } = s;
    t.clock.advance(4_000);
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(text, /^rentpay_webhook_attempts_total\{outcome="delivered"\} [1-9]\d*$/m);
    assert.match(text, /^rentpay_webhook_attempts_total\{outcome="retry"\} [1-9]\d*$/m);
    assert.match(text, /^rentpay_webhook_attempt_duration_seconds_count\{outcome="delivered"\} [1-9]\d*$/m);
    assert.match(text, /^rentpay_webhook_attempt_duration_seconds_bucket\{le="15",outcome="delivered"\} /m);
    assert.match(text, /^rentpay_webhook_deliveries\{status="pending"\} 1$/m);
    assert.match(text, /^rentpay_webhook_deliveries\{status="failed"\} 0$/m);
    assert.match(text, /^rentpay_webhook_oldest_pending_age_seconds 4$/m);
  });

  it('lists events newest first with filters and pages', async () => {
    const { t, integrator } = s;
    const all = await operator(t, 'GET', `/webhooks/events?integrator_id=${integrator.id}`);
    assert.deepEqual(
      all.body.data.map((e: { event_id: string }) => e.event_id),
      [...events].reverse(),
    );
    assert.deepEqual(
      all.body.data.map((e: { status: string }) => e.status),
      ['pending', 'delivered'],
    );
    const pending = await operator(t, 'GET', '/webhooks/events?status=pending');
    assert.deepEqual(
      pending.body.data.map((e: { event_id: string }) => e.event_id),
      [events[1]],
    );
    assert.equal(pending.body.data[0].last_status_code, 500);
    const since = await operator(
      t,
      'GET',
      `/webhooks/events?since=${encodeURIComponent('2026-03-01T09:00:00.500Z')}`,
    );
    assert.equal(since.body.data.length, 1);
    const page = await operator(t, 'GET', '/webhooks/events?limit=1');
    assert.equal(page.body.has_more, true);
    const next = await operator(
      t,
      'GET',
      `/webhooks/events?limit=1&starting_after=${page.body.data[0].event_id}`,
    );
    assert.deepEqual(
      next.body.data.map((e: { event_id: string }) => e.event_id),
      [events[0]],
    );
    assert.equal(next.body.has_more, false);
    const typed = await operator(t, 'GET', '/webhooks/events?type=payment_success');
    assert.deepEqual(
      typed.body.data.map((e: { event_id: string }) => e.event_id),
      [events[0]],
    );
    assert.equal((await operator(t, 'GET', '/webhooks/events?status=nope')).status, 400);
    assert.equal((await operator(t, 'GET', '/webhooks/events/evt_nope')).status, 404);
  });

  it('rentpay webhooks list, show, redeliver, endpoint, rotate-secret', async () => {
    const { t, integrator, receiver } = s;
    const list = await runCli(['webhooks', 'list'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^EVENT_ID\s+TYPE\s+STATUS\s+ATTEMPTS\s+LAST\s+CREATED_AT\s+INTEGRATOR$/m);
    assert.match(list.stdout, new RegExp(`^${events[1]}\\s+payment_failed\\s+pending\\s+1\\s+500\\s`, 'm'));
    const json = await runCli(['webhooks', 'list', '--status', 'delivered', '--json'], env);
    assert.deepEqual(
      JSON.parse(json.stdout).data.map((e: { event_id: string }) => e.event_id),
      [events[0]],
    );

    const show = await runCli(['webhooks', 'show', events[1]!], env);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^status\s+pending, next attempt 2026-/m);
    assert.match(show.stdout, /^ {2}#1 {2}\S+ {2}HTTP 500 {2}\d+ ms {2}retry, next 2026-/m);
    assert.match(show.stdout, /^ {6}response: "nope"$/m);

    const before = receiver.received.length;
    const one = await runCli(['webhooks', 'redeliver', events[1]!], env);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, new RegExp(`^Redelivering ${events[1]}: pending`));
    await runJobs(t);
    assert.deepEqual(receiver.ids().slice(before), [events[1]]);

    const bulk = await runCli(['webhooks', 'redeliver', '--failed-since', '2026-03-01T00:00:00Z'], env);
    assert.equal(bulk.code, 0, bulk.stderr);
    assert.equal(bulk.stdout, 'Redelivering 0 failed deliveries.\n');
    const both = await runCli(
      ['webhooks', 'redeliver', events[0]!, '--failed-since', '2026-03-01T00:00:00Z'],
      env,
    );
    assert.equal(both.code, 2);
    assert.match(both.stderr, /not both/);
    const badTime = await runCli(['webhooks', 'redeliver', '--failed-since', 'yesterday'], env);
    assert.equal(badTime.code, 2);

    const endpoint = await runCli(['webhooks', 'endpoint', integrator.id], env);
    assert.match(endpoint.stdout, /^state\s+enabled$/m);
    assert.match(endpoint.stdout, /^deliveries\s+0 pending, 0 failed$/m);
    const rotated = await runCli(['webhooks', 'rotate-secret', integrator.id, '--json'], env);
    assert.match(JSON.parse(rotated.stdout).webhook_secret, /^whsec_/);
    const missing = await runCli(['webhooks', 'show', 'evt_nope'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /404 not_found: No event evt_nope\./);
  });
});
