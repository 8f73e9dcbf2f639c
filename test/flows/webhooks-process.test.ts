import assert from 'node:assert/strict';
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { IntegratorService } from '../../src/integrators/service.ts';
import { systemClock } from '../../src/platform/clock/clock.ts';
import { type DatabaseOptions, openDatabase } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { enqueueJob } from '../../src/platform/jobs/queue.ts';
import { webhookDeliverJob } from '../../src/webhooks/jobs/webhook-deliver.ts';
import { recordEvent } from '../../src/webhooks/record-event.ts';
import { createTestDatabase, pgliteDataDir, TEST_DATABASE_URL } from '../support/helpers.ts';
import { Receiver, verify } from '../support/webhook-receiver.ts';

interface WorkerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the worker logs a line that matches. */
  logged(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<void>;
  exit: Promise<number | null>;
  stderr(): string;
  /** Its JSON log lines so far. */
  lines(): Record<string, unknown>[];
}

/** `rentpay worker` as operators run it, on the test database, allowed to reach the local receiver. */
/** Worker processes still running; a failed test kills its own, or its pipes would keep this file from ending. */
const running = new Set<ChildProcess>();

/** Deliveries one worker runs at once for one integrator. */
const PER_INTEGRATOR = 4;

function startWorker(options: DatabaseOptions): WorkerProcess {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'info',
    WORKER_POLL_INTERVAL_MS: '50',
    WORKER_CONCURRENCY_PER_INTEGRATOR: String(PER_INTEGRATOR),
    ALLOW_PRIVATE_WEBHOOK_HOSTS: '1',
    // The worker's health and metrics listen on PORT: any free one.
    PORT: '0',
  };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const child = spawn(process.execPath, ['bin/rentpay.mjs', 'worker'], { env, stdio: 'pipe' });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (chunk) => {
    out += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Complete lines only: a chunk can end in the middle of one.
  const lines = () =>
    out
      .slice(0, out.lastIndexOf('\n') + 1)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    child,
    exit,
    stderr: () => err,
    lines,
    async logged(match, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (lines().some(match)) return;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`worker did not log it (exit ${child.exitCode}): ${out.slice(-2000)} ${err}`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

async function stop(worker: WorkerProcess): Promise<number | null> {
  worker.child.kill('SIGTERM');
  return worker.exit;
}

describe('webhooks with real worker processes', () => {
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
  });

  it('a worker killed (SIGKILL) in the middle of a delivery: delivered after restart, same webhook-id', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-webhook-worker-'));
    const options = { databaseUrl: database.databaseUrl, dataDir };
    // The first request is never answered: the worker is killed while it waits. Later ones get a 200.
    const receiver = await Receiver.start();
    receiver.respond = (_request, index) => (index === 0 ? 'hang' : { status: 200, body: 'ok' });
    try {
      await pgliteDataDir(dataDir);
      const setup = await openDatabase(options);
      await migrate(setup);
      const { integrator } = await new IntegratorService(setup, systemClock, 'sandbox').create(
        {
          name: 'Killed worker',
          webhook_url: receiver.url,
        },
        SYSTEM_ACTOR,
      );
      const eventId = await setup.transaction((tx) =>
        recordEvent(tx, systemClock, integrator.id, 'payment_success', { payment: { payment_id: 'pay_1' } }),
      );
      await setup.close();

      const first = startWorker(options);
      await receiver.waitFor(1, 60_000);
      first.child.kill('SIGKILL');
      assert.equal(await first.exit, null, 'killed, not exited');

      // The claim survived the crash: the job is still leased to the dead worker, and still the delivery's job.
      // Waiting out the 5-minute lease is replaced by moving it into the past.
      const between = await openDatabase(options);
      const [job] = await between.query<{ id: string; status: string }>(
        'SELECT id, status FROM jobs WHERE kind = $1',
        [webhookDeliverJob.kind],
      );
      assert.equal(job?.status, 'running');
      const [pending] = await between.query<{ status: string; job_id: string; attempts: number }>(
        'SELECT status, job_id, attempts FROM webhook_deliveries WHERE event_id = $1',
        [eventId],
      );
      assert.deepEqual(pending, { status: 'pending', job_id: job.id, attempts: 0 }, 'nothing was recorded');
      await between.query("UPDATE jobs SET locked_until = $1 WHERE status = 'running'", [
        new Date(Date.now() - 1000),
      ]);
      await between.close();

      const second = startWorker(options);
      await second.logged((line) => line.msg === 'webhook delivered' && line.event_id === eventId);
      assert.equal(await stop(second), 0, second.stderr());

      assert.deepEqual(receiver.ids(), [eventId, eventId], 'sent again with the same webhook-id');
      const [secret] = [integrator.webhook_secret];
      for (const request of receiver.received) {
        verify(secret, request, new Date(Number(request.headers['webhook-timestamp']) * 1000));
      }
      assert.equal(receiver.received[0]!.body, receiver.received[1]!.body);

      const check = await openDatabase(options);
      const [delivered] = await check.query<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1',
        [eventId],
      );
      assert.deepEqual(delivered, { status: 'delivered', attempts: 1 });
      const attempts = await check.query<{ status_code: number; outcome: string }>(
        'SELECT status_code, outcome FROM webhook_attempts WHERE event_id = $1',
        [eventId],
      );
      assert.deepEqual(attempts, [{ status_code: 200, outcome: 'delivered' }]);
      await check.close();
    } finally {
      await receiver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });

  // PGlite serves one process: there the second worker must refuse to start rather than share the files (the
  // in-process variant with two workers is in webhooks.test.ts).
  const twoWorkersTitle = TEST_DATABASE_URL
    ? 'two worker processes over one PostgreSQL database: every event once, never twice at the same time'
    : 'a second worker process on the same PGlite data directory refuses to start; the first delivers every event once';
  it(twoWorkersTitle, async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-webhook-workers-'));
    const options = { databaseUrl: database.databaseUrl, dataDir };
    const receiver = await Receiver.start();
    // One worker has at most PER_INTEGRATOR deliveries of this integrator in flight. The first requests are held
    // until more than that are waiting at once, which only two working workers can do: then both deliver, however
    // their start-up races. (PGlite runs one worker, which is answered at once.)
    const held: (() => void)[] = [];
    let bothWorking = !TEST_DATABASE_URL;
    receiver.respond = async () => {
      if (!bothWorking) {
        await new Promise<void>((release) => {
          held.push(release);
          if (held.length > PER_INTEGRATOR) {
            bothWorking = true;
            for (const wake of held.splice(0)) wake();
          }
        });
      }
      return { status: 200, delayMs: Math.floor(Math.random() * 10) };
    };
    const events = 300;
    try {
      await pgliteDataDir(dataDir);
      const setup = await openDatabase(options);
      await migrate(setup);
      const { integrator } = await new IntegratorService(setup, systemClock, 'sandbox').create(
        {
          name: 'Two workers',
          webhook_url: receiver.url,
        },
        SYSTEM_ACTOR,
      );
      const ids: string[] = [];
      for (let i = 0; i < events; i++) {
        await setup.transaction(async (tx) => {
          const id = await recordEvent(tx, systemClock, integrator.id, 'payment_success', { n: i });
          // A second job for the same delivery, as a redelivery of a pending one makes.
          await enqueueJob(tx, systemClock, webhookDeliverJob.kind, { event_id: id });
          ids.push(id);
        });
      }
      if (!TEST_DATABASE_URL) {
        await setup.close();
        const only = startWorker(options);
        await only.logged((line) => line.msg === 'webhook delivered');
        const refused = startWorker(options);
        assert.notEqual(await refused.exit, 0);
        assert.match(refused.stderr(), /in use by another rentpay process \(pid \d+\)/);
        assert.deepEqual(
          refused.lines().filter((line) => line.msg === 'webhook delivered'),
          [],
          'the refused worker delivered nothing',
        );
        await receiver.waitFor(events, 120_000);
        await only.logged(
          () => only.lines().filter((line) => line.msg === 'webhook delivered').length === events,
        );
        assert.equal(await stop(only), 0, only.stderr());
        assert.equal(receiver.concurrentDuplicates, 0);
        assert.deepEqual([...receiver.ids()].sort(), [...ids].sort(), 'each event exactly once');
        const check = await openDatabase(options);
        const [row] = await check.query<{ delivered: number }>(
          "SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE status = 'delivered'",
        );
        assert.equal(row!.delivered, events);
        await check.close();
        return;
      }
      const workers = [startWorker(options), startWorker(options)];
      await receiver.waitFor(events, 120_000);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [left] = await setup.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM jobs WHERE status <> 'succeeded'",
        );
        if (left!.n === 0) break;
        assert.ok(Date.now() < deadline, `${left!.n} jobs left`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const worker of workers) assert.equal(await stop(worker), 0, worker.stderr());

      assert.equal(receiver.concurrentDuplicates, 0);
      assert.deepEqual([...receiver.ids()].sort(), [...ids].sort(), 'each event exactly once');
      const delivered = workers.map((w) => w.lines().filter((l) => l.msg === 'webhook delivered').length);
      assert.equal(delivered[0]! + delivered[1]!, events);
      assert.ok(delivered[0]! > 0 && delivered[1]! > 0, `both workers delivered (${delivered})`);
      const [row] = await setup.query<{ delivered: number }>(
        "SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE status = 'delivered'",
      );
      assert.equal(row!.delivered, events);
      await setup.close();
    } finally {
      await receiver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
