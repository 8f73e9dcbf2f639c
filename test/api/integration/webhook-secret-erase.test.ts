/**
 * A webhook secret replaced by rotation signs beside the new one for 24 hours and is then erased from the
 * database by a job written with the rotation. Basic rotation and signing are in webhooks.test.ts; this file
 * follows the replaced secret to its erasure: retries across the end of the overlap, a late worker, a repeated
 * or early job, and rotations stacked inside one overlap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandler } from '../../../src/platform/jobs/define.ts';
import { Worker } from '../../../src/platform/jobs/worker.ts';
import { createLogger } from '../../../src/platform/log/logger.ts';
import { webhookDeliverJob, webhookDeliveryHandler } from '../../../src/webhooks/jobs/webhook-deliver.ts';
import { webhookSecretEraseJob } from '../../../src/webhooks/jobs/webhook-secret-erase.ts';
import { recordEvent } from '../../../src/webhooks/record-event.ts';
import { send, UNLIMITED } from '../../support/api-client.ts';
import { OPERATOR_TOKEN, runJobs, startTestApp, type TestApp } from '../../support/helpers.ts';
import { type Received, Receiver, verify } from '../../support/webhook-receiver.ts';

const HOUR = 3_600_000;
const OVERLAP_MS = 24 * HOUR;

describe('webhooks: a replaced secret is erased when its overlap ends', () => {
  let t: TestApp;
  let receiver: Receiver;
  /** Events whose first attempt the receiver answers 503. */
  const failFirst = new Set<string>();

  before(async () => {
    receiver = await Receiver.start();
    receiver.respond = (request) => {
      const id = String(request.headers['webhook-id']);
      if (!failFirst.delete(id)) return { status: 200, body: 'ok' };
      return { status: 503, body: 'try later' };
    };
    t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  /** Each test has an integrator of its own on the shared app, clock and receiver. */
  async function integrator(): Promise<{ id: string; secret: string }> {
    const created = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    return { id: created.id, secret: created.webhookSecret };
  }

  async function rotate(integratorId: string): Promise<{ secret: string; expiresAt: string }> {
    const answer = await send(t, {
      method: 'POST',
      url: `/api/operator/integrators/${integratorId}/webhook-secret/rotate`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return { secret: answer.body.webhook_secret, expiresAt: answer.body.previous_secret_expires_at };
  }

  async function endpointRow(integratorId: string) {
    const [row] = await t.db.query<{ previous_secret: string | null; updated_at: Date }>(
      'SELECT previous_secret, updated_at FROM webhook_endpoints WHERE integrator_id = $1',
      [integratorId],
    );
    assert.ok(row, `no webhook_endpoints row for ${integratorId}`);
    return row;
  }

  async function eraseJobs(integratorId: string) {
    return t.db.query<{ status: string; run_at: Date }>(
      `SELECT status, run_at FROM jobs WHERE kind = $1 AND payload->>'integrator_id' = $2 ORDER BY run_at`,
      [webhookSecretEraseJob.kind, integratorId],
    );
  }

  function newEvent(integratorId: string): Promise<string> {
    return t.db.transaction((tx) =>
      recordEvent(tx, t.clock, integratorId, 'schedule_paused', {
        schedule: { schedule_id: 'sch_test', status: 'paused' },
        user_id: 1,
        email: 'tenant@example.com',
        payment_reference: 'TEN-1',
      }),
    );
  }

  function arrivals(eventId: string): Received[] {
    return receiver.received.filter((request) => request.headers['webhook-id'] === eventId);
  }

  function signatureCount(request: Received): number {
    return String(request.headers['webhook-signature']).split(' ').length;
  }

  /** Signed by `current` alone: the replaced secret verifies nothing. */
  function assertOnlySignedBy(request: Received, current: string, replaced: string): void {
    assert.equal(signatureCount(request), 1, String(request.headers['webhook-signature']));
    verify(current, request, t.clock.now());
    assert.throws(() => verify(replaced, request, t.clock.now()), /No matching signature/);
  }

  it('the rotation writes one erase job, due when the overlap ends; a refused rotation writes none', async () => {
    const { id } = await integrator();
    assert.deepEqual(await eraseJobs(id), []);
    const rotated = await rotate(id);
    assert.equal(rotated.expiresAt, new Date(t.clock.now().getTime() + OVERLAP_MS).toISOString());
    const jobs = await eraseJobs(id);
    assert.deepEqual(
      jobs.map((job) => ({ status: job.status, run_at: new Date(job.run_at).toISOString() })),
      [{ status: 'pending', run_at: rotated.expiresAt }],
    );

    const [before] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE kind = $1', [
      webhookSecretEraseJob.kind,
    ]);
    const missing = await send(t, {
      method: 'POST',
      url: '/api/operator/integrators/int_missing/webhook-secret/rotate',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(missing.status, 404);
    const [afterwards] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM jobs WHERE kind = $1',
      [webhookSecretEraseJob.kind],
    );
    assert.equal(afterwards?.n, before?.n);
  });

  it('an event first tried in the overlap carries both signatures; its retry after the overlap only the new one, and the old secret is NULL', async () => {
    const { id, secret: old } = await integrator();
    const { secret: current } = await rotate(id);
    t.clock.advance(OVERLAP_MS - 60_000);
    const eventId = await newEvent(id);
    failFirst.add(eventId);
    await runJobs(t);
    const [first] = arrivals(eventId);
    assert.ok(first, 'the first attempt arrived');
    assert.equal(signatureCount(first), 2);
    verify(old, first, t.clock.now());
    verify(current, first, t.clock.now());
    assert.equal((await endpointRow(id)).previous_secret, old, 'kept while it still signs');

    t.clock.advance(2 * 60_000);
    await runJobs(t);
    const [, retry] = arrivals(eventId);
    assert.ok(retry, 'the retry arrived');
    assertOnlySignedBy(retry, current, old);
    assert.equal((await endpointRow(id)).previous_secret, null);
    assert.deepEqual(
      (await eraseJobs(id)).map((job) => job.status),
      ['succeeded'],
    );
    const view = await send(t, {
      method: 'GET',
      url: `/api/operator/integrators/${id}/webhook`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(view.status, 200);
    assert.equal(view.body.previous_secret_expires_at, null);
    assert.notEqual(view.body.secret_rotated_at, null);
  });

  it('with the erase job not yet run, deliveries after the overlap still carry no old signature; the late job erases', async () => {
    const { id, secret: old } = await integrator();
    const { secret: current } = await rotate(id);
    t.clock.advance(OVERLAP_MS + HOUR);
    // A worker that delivers webhooks but runs nothing else: the erase job waits.
    const deliveriesOnly = new Worker({
      db: t.db,
      clock: t.clock,
      log: createLogger('silent'),
      handlers: { [webhookDeliverJob.kind]: webhookDeliveryHandler({ allowPrivate: true }) },
    });
    const eventId = await newEvent(id);
    await deliveriesOnly.drain();
    const [sent] = arrivals(eventId);
    assert.ok(sent);
    assertOnlySignedBy(sent, current, old);
    assert.equal((await endpointRow(id)).previous_secret, old, 'the job has not run yet');

    t.clock.advance(3 * OVERLAP_MS);
    await runJobs(t);
    assert.equal((await endpointRow(id)).previous_secret, null);
  });

  it('the erase job does nothing before the overlap ends, and nothing when run again', async () => {
    const { id, secret: old } = await integrator();
    const { expiresAt } = await rotate(id);
    const run = () =>
      jobHandler(
        webhookSecretEraseJob,
        undefined,
      )({
        job: {
          id: 'job_by_hand',
          kind: webhookSecretEraseJob.kind,
          payload: { integrator_id: id },
          attempts: 1,
          max_attempts: 10,
        },
        db: t.db,
        clock: t.clock,
        log: createLogger('silent'),
      });

    t.clock.set(new Date(new Date(expiresAt).getTime() - 1));
    await run();
    assert.equal(
      (await endpointRow(id)).previous_secret,
      old,
      'one millisecond before the end it still signs',
    );

    t.clock.set(new Date(expiresAt));
    await run();
    const erased = await endpointRow(id);
    assert.equal(erased.previous_secret, null);

    t.clock.advance(HOUR);
    await run();
    await runJobs(t);
    const again = await endpointRow(id);
    assert.equal(again.previous_secret, null);
    assert.equal(again.updated_at.getTime(), erased.updated_at.getTime(), 'a second run writes nothing');
  });

  it('rotations stacked inside one overlap: only the newest replaced secret is kept, until its own overlap ends', async () => {
    const { id, secret: first } = await integrator();
    const start = t.clock.now().getTime();
    const second = await rotate(id);
    t.clock.advance(4 * HOUR);
    const third = await rotate(id);
    t.clock.advance(4 * HOUR);
    const fourth = await rotate(id);
    const stored = JSON.stringify(
      await t.db.query('SELECT * FROM webhook_endpoints WHERE integrator_id = $1', [id]),
    );
    for (const gone of [first, second.secret]) assert.ok(!stored.includes(gone), 'overwritten at once');
    assert.equal((await endpointRow(id)).previous_secret, third.secret);
    assert.equal((await eraseJobs(id)).length, 3, 'one job per rotation');

    // The first two rotations' jobs come due and find a replaced secret whose overlap has not ended.
    t.clock.set(new Date(start + 4 * HOUR + OVERLAP_MS));
    await runJobs(t);
    assert.deepEqual(
      (await eraseJobs(id)).map((job) => job.status),
      ['succeeded', 'succeeded', 'pending'],
    );
    assert.equal((await endpointRow(id)).previous_secret, third.secret);
    const during = await newEvent(id);
    await runJobs(t);
    const [both] = arrivals(during);
    assert.ok(both);
    assert.equal(signatureCount(both), 2);
    verify(third.secret, both, t.clock.now());
    verify(fourth.secret, both, t.clock.now());
    for (const gone of [first, second.secret]) {
      assert.throws(() => verify(gone, both, t.clock.now()), /No matching signature/);
    }

    t.clock.set(new Date(fourth.expiresAt));
    await runJobs(t);
    assert.equal((await endpointRow(id)).previous_secret, null);
    const later = await newEvent(id);
    await runJobs(t);
    const [only] = arrivals(later);
    assert.ok(only);
    assertOnlySignedBy(only, fourth.secret, third.secret);
  });
});
