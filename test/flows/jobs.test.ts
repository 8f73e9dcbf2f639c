import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import type { Db } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import {
  enqueueJob,
  type JobHandler,
  type JobRow,
  queueStats,
  STANDARD_RETRY_DELAYS_MS,
} from '../../src/platform/jobs/queue.ts';
import { JOB_LEASE_MS, Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/helpers.ts';

const silent = createLogger('silent');
/** Which database this pass runs on: createTestDatabase gives PostgreSQL when TEST_DATABASE_URL is set. */
const ON_POSTGRES = TEST_DATABASE_URL !== undefined;

/** Resolves as `promise` does, or fails with `what` once `ms` have passed. */
async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('job queue', () => {
  let database: TestDatabase;
  let db: Db;
  /** On PostgreSQL a second pool: two workers then compete through separate database sessions. */
  let otherDb: Db;
  const clock = new FakeClock('2026-05-01T00:00:00.000Z');

  before(async () => {
    database = await createTestDatabase();
    db = await database.open();
    assert.equal(db.kind, ON_POSTGRES ? 'postgres' : 'pglite');
    await migrate(db);
    otherDb = ON_POSTGRES ? await database.open() : db;
    await db.query(
      `CREATE TABLE job_runs (job_id text NOT NULL, worker text NOT NULL, backend_pid integer NOT NULL,
         started_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  after(async () => {
    if (otherDb !== db) await otherDb.close();
    await db.close();
    await database.drop();
  });

  async function clearJobs() {
    await db.query('DELETE FROM jobs');
    await db.query('DELETE FROM job_runs');
  }

  /**
   * Two workers draining one queue at once, each with `concurrency` 7, recording which worker ran each job and on
   * which database session. What that proves depends on the database: on PostgreSQL each worker has a pool of its
   * own (separate sessions, as separate processes would have), so their claims really race and only FOR UPDATE SKIP
   * LOCKED keeps them apart; PGlite is one connection in one process, so the workers' claims take turns on it and
   * what is proved is that interleaving two workers in one process never runs a job twice.
   */
  it(
    ON_POSTGRES
      ? 'PostgreSQL, two workers on separate connections (two pools): SKIP LOCKED claims run each job exactly once, never the same job at once'
      : 'PGlite (one connection), two workers interleaving in one process: each job runs exactly once, never the same job at once',
    async () => {
      await clearJobs();
      const total = 300;
      await db.transaction(async (tx) => {
        for (let i = 0; i < total; i++) await enqueueJob(tx, clock, 'test.record', { n: i });
      });
      const inFlight = new Set<string>();
      let overlaps = 0;
      const record: (name: string) => JobHandler =
        (name) =>
        async ({ job, db: jobDb }) => {
          if (inFlight.has(job.id)) overlaps++;
          inFlight.add(job.id);
          await jobDb.query(
            'INSERT INTO job_runs (job_id, worker, backend_pid) VALUES ($1, $2, pg_backend_pid())',
            [job.id, name],
          );
          // Yield so the other worker gets every chance to claim the same row while this one holds it.
          await new Promise((resolve) => setImmediate(resolve));
          inFlight.delete(job.id);
        };
      const a = new Worker({
        db,
        clock,
        log: silent,
        handlers: { 'test.record': record('a') },
        concurrency: 7,
      });
      const b = new Worker({
        db: otherDb,
        clock,
        log: silent,
        handlers: { 'test.record': record('b') },
        concurrency: 7,
      });
      const [ranA, ranB] = await Promise.all([a.drain(), b.drain()]);
      assert.equal(ranA + ranB, total);
      assert.equal(overlaps, 0);
      const [counts] = await db.query<{ runs: number; distinct_jobs: number; workers: number }>(
        'SELECT count(*)::int AS runs, count(DISTINCT job_id)::int AS distinct_jobs, count(DISTINCT worker)::int AS workers FROM job_runs',
      );
      assert.equal(counts?.runs, total, 'every job ran once');
      assert.equal(counts?.distinct_jobs, total, 'no job ran twice');
      const [done] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM jobs WHERE status = 'succeeded'`,
      );
      assert.equal(done?.n, total);
      assert.equal(counts?.workers, 2, 'both workers took part');
      assert.ok(ranA > 0 && ranB > 0, `both workers ran jobs (a ${ranA}, b ${ranB})`);
      const sessions = await db.query<{ worker: string; pids: number[] }>(
        'SELECT worker, array_agg(DISTINCT backend_pid ORDER BY backend_pid) AS pids FROM job_runs GROUP BY worker ORDER BY worker',
      );
      const [pidsOfA, pidsOfB] = sessions.map((row) => row.pids);
      assert.ok(pidsOfA && pidsOfB, JSON.stringify(sessions));
      if (ON_POSTGRES) {
        assert.notEqual(otherDb, db, 'the second worker has a pool of its own');
        assert.deepEqual(
          pidsOfA.filter((pid) => pidsOfB.includes(pid)),
          [],
          `the workers ran on separate sessions (a: ${pidsOfA}, b: ${pidsOfB})`,
        );
      } else {
        // Stated, not assumed: on PGlite both workers ran on the one connection, so this is the in-process case.
        assert.equal(otherDb, db);
        assert.deepEqual(pidsOfB, pidsOfA, 'one PGlite connection for both workers');
        assert.equal(pidsOfA.length, 1);
      }
    },
  );

  it(
    ON_POSTGRES
      ? 'PostgreSQL: a claim skips the jobs another session holds locked, at once, and takes them once released'
      : 'PGlite (one connection): a claim waits for an open transaction that holds jobs locked, then takes them',
    async () => {
      await clearJobs();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await enqueueJob(db, clock, 'test.locked', { n: i }))!);
      const locked = ids.slice(0, 2);
      const worker = new Worker({
        db: otherDb,
        clock,
        log: silent,
        handlers: { 'test.locked': async () => undefined },
      });
      let claimedWhileLocked: string[] = [];
      let pendingClaim: Promise<JobRow[]> | undefined;
      let claimSettled = false;
      await db.transaction(async (tx) => {
        const rows = await tx.query<{ id: string }>(
          'SELECT id FROM jobs WHERE id IN ($1, $2) FOR UPDATE',
          locked,
        );
        assert.equal(rows.length, locked.length);
        if (ON_POSTGRES) {
          // Another session's claim must not wait for this transaction (it would never end: it waits for the claim).
          const claimed = await withDeadline(
            worker.claim(),
            10_000,
            'a claim on the other pool skips the locked rows',
          );
          claimedWhileLocked = claimed.map((job) => job.id).sort();
        } else {
          // One connection: the claim queues behind this transaction instead of running inside it.
          pendingClaim = worker.claim();
          pendingClaim.then(
            () => {
              claimSettled = true;
            },
            () => undefined,
          );
          for (let i = 0; i < 3; i++) await tx.query('SELECT 1');
          assert.equal(claimSettled, false, 'the claim did not run while the transaction was open');
        }
      });
      if (ON_POSTGRES) {
        assert.deepEqual(claimedWhileLocked, ids.slice(2).sort(), 'the unlocked jobs, and only those');
        const afterRelease = (await worker.claim()).map((job) => job.id).sort();
        assert.deepEqual(afterRelease, [...locked].sort(), 'the locked jobs, once released');
      } else {
        assert.ok(pendingClaim);
        const claimed = await withDeadline(pendingClaim, 10_000, 'the queued claim after the transaction');
        assert.deepEqual(claimed.map((job) => job.id).sort(), [...ids].sort());
      }
      const [again] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM jobs WHERE status = 'running' AND attempts = 1`,
      );
      assert.equal(again?.n, ids.length, 'every job claimed exactly once');
      assert.deepEqual(await worker.claim(), [], 'nothing left to claim');
    },
  );

  it('a job enqueued in a transaction that rolls back never exists', async () => {
    await clearJobs();
    await assert.rejects(
      db.transaction(async (tx) => {
        await enqueueJob(tx, clock, 'test.record', {});
        throw new Error('state change failed');
      }),
      /state change failed/,
    );
    const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
    assert.equal(row?.n, 0);
  });

  it('a dedupe key makes a second enqueue a no-op', async () => {
    await clearJobs();
    await enqueueJob(db, clock, 'test.record', { n: 1 }, { dedupeKey: 'same' });
    await enqueueJob(db, clock, 'test.record', { n: 2 }, { dedupeKey: 'same' });
    const rows = await db.query<{ payload: { n: number } }>('SELECT payload FROM jobs');
    assert.deepEqual(
      rows.map((r) => r.payload.n),
      [1],
    );
  });

  it('does not run a job before its time', async () => {
    await clearJobs();
    let runs = 0;
    const worker = new Worker({
      db,
      clock,
      log: silent,
      handlers: { 'test.later': async () => void runs++ },
    });
    await enqueueJob(db, clock, 'test.later', {}, { runAt: new Date(clock.now().getTime() + 60_000) });
    assert.equal(await worker.drain(), 0);
    clock.advance(60_000);
    assert.equal(await worker.drain(), 1);
    assert.equal(runs, 1);
  });

  it('retries a failing job on the backoff schedule and marks it failed after the last attempt', async () => {
    await clearJobs();
    let attempts = 0;
    const worker = new Worker({
      db,
      clock,
      log: silent,
      handlers: {
        'test.flaky': async () => {
          attempts++;
          throw new Error(`boom ${attempts}`);
        },
      },
    });
    await enqueueJob(db, clock, 'test.flaky', {}, { maxAttempts: 3 });
    assert.equal(await worker.drain(), 1);
    const status = async () =>
      (
        await db.query<{ status: string; attempts: number; last_error: string; run_at: Date }>(
          'SELECT status, attempts, last_error, run_at FROM jobs',
        )
      )[0]!;
    let row = await status();
    assert.equal(row.status, 'pending');
    assert.equal(row.last_error, 'boom 1');
    assert.equal(new Date(row.run_at).getTime(), clock.now().getTime() + STANDARD_RETRY_DELAYS_MS[0]!);
    clock.advance(STANDARD_RETRY_DELAYS_MS[0]! - 1);
    assert.equal(await worker.drain(), 0, 'not before the backoff');
    clock.advance(1);
    assert.equal(await worker.drain(), 1);
    row = await status();
    assert.equal(new Date(row.run_at).getTime(), clock.now().getTime() + STANDARD_RETRY_DELAYS_MS[1]!);
    clock.advance(STANDARD_RETRY_DELAYS_MS[1]!);
    assert.equal(await worker.drain(), 1);
    row = await status();
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 3);
    assert.equal(row.last_error, 'boom 3');
    clock.advance(86_400_000);
    assert.equal(await worker.drain(), 0, 'a failed job is not picked up again');
    assert.equal((await queueStats(db, clock)).failed, 1);
  });

  it('a job whose worker died is taken over once its lease expires, and only then', async () => {
    await clearJobs();
    let runs = 0;
    const handlers = { 'test.lease': async () => void runs++ };
    const crashed = new Worker({ db, clock, log: silent, handlers, name: 'crashed' });
    await enqueueJob(db, clock, 'test.lease', {});
    // The crashed worker claims the job and never finishes it.
    assert.equal((await crashed.claim()).length, 1);
    const survivor = new Worker({ db: otherDb, clock, log: silent, handlers, name: 'survivor' });
    assert.equal(await survivor.drain(), 0, 'still leased to the crashed worker');
    clock.advance(JOB_LEASE_MS + 1);
    assert.equal(await survivor.drain(), 1);
    assert.equal(runs, 1);
    const [row] = await db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs');
    assert.deepEqual(row, { status: 'succeeded', attempts: 2 });
  });

  it('a live worker renews the lease of a job that runs longer than the lease, so nobody takes it over', async () => {
    await clearJobs();
    let runs = 0;
    let finish: () => void = () => undefined;
    let markStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const handlers = {
      'test.long': async () => {
        runs += 1;
        markStarted();
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
    };
    const busy = new Worker({ db, clock, log: silent, handlers, name: 'busy', heartbeatMs: 10 });
    await enqueueJob(db, clock, 'test.long', {});
    const draining = busy.drain();
    await started;
    const leasedUntil = async () =>
      new Date(
        (await db.query<{ locked_until: Date }>('SELECT locked_until FROM jobs'))[0]!.locked_until,
      ).getTime();
    // The handler has now outlived its first lease; the next heartbeat renews it from the clock's time.
    clock.advance(JOB_LEASE_MS + 1);
    const deadline = Date.now() + 10_000;
    while ((await leasedUntil()) <= clock.now().getTime()) {
      assert.ok(Date.now() < deadline, 'the lease was never renewed');
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal((await leasedUntil()) - clock.now().getTime(), JOB_LEASE_MS);
    const survivor = new Worker({ db: otherDb, clock, log: silent, handlers, name: 'survivor' });
    assert.equal(await survivor.drain(), 0, 'a renewed lease is not taken over');
    finish();
    assert.equal(await draining, 1);
    assert.equal(runs, 1);
    const [row] = await db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs');
    assert.deepEqual(row, { status: 'succeeded', attempts: 1 });
  });

  it('claims fairly: each worker runs at most perKey jobs of one fair key, and gives its other slots to others', async () => {
    await clearJobs();
    const handlers = { 'test.fair': async () => undefined };
    const at = (ms: number) => ({ runAt: new Date(clock.now().getTime() - 60_000 + ms) });
    // Integrator A's ten jobs are the oldest; B's four and two unkeyed ones come after them.
    for (let i = 0; i < 10; i++)
      await enqueueJob(db, clock, 'test.fair', { n: `a${i}` }, { ...at(i), fairKey: 'int_A' });
    for (let i = 0; i < 4; i++)
      await enqueueJob(db, clock, 'test.fair', { n: `b${i}` }, { ...at(100 + i), fairKey: 'int_B' });
    for (let i = 0; i < 2; i++) await enqueueJob(db, clock, 'test.fair', { n: `u${i}` }, at(200 + i));
    const first = new Worker({ db, clock, log: silent, handlers, name: 'first', concurrency: 8, perKey: 3 });
    const names = (jobs: { payload: Record<string, unknown> }[]) =>
      jobs.map((job) => String(job.payload.n)).sort();
    assert.deepEqual(names(await first.claim(8)), ['a0', 'a1', 'a2', 'b0', 'b1', 'b2', 'u0', 'u1']);
    // A's three and B's three run on the first worker: it takes no more of theirs, even with slots free.
    assert.deepEqual(names(await first.claim(8)), []);
    // Another worker has its own share of each.
    const second = new Worker({
      db: otherDb,
      clock,
      log: silent,
      handlers,
      name: 'second',
      concurrency: 8,
      perKey: 3,
    });
    assert.deepEqual(names(await second.claim(8)), ['a3', 'a4', 'a5', 'b3']);
    // Once one of A's ends on the first worker, that worker may run one more of A's (the oldest left).
    await db.query(
      "UPDATE jobs SET status = 'succeeded', locked_by = NULL, locked_until = NULL, finished_at = $1 WHERE payload->>'n' = 'a0'",
      [clock.now()],
    );
    assert.deepEqual(names(await first.claim(8)), ['a6']);
  });

  it('claiming ahead: a worker holds twice perKey of one key, but at most perKey are in flight; a settled job frees its place', async () => {
    await clearJobs();
    for (let i = 0; i < 10; i++) await enqueueJob(db, clock, 'test.ahead', { n: i }, { fairKey: 'int_A' });
    let inFlight = 0;
    let most = 0;
    const ahead: JobHandler = async ({ lease }) => {
      await lease?.inFlight();
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      lease?.settling();
    };
    ahead.marksInFlight = true;
    const options = { db, clock, log: silent, handlers: { 'test.ahead': ahead }, concurrency: 4, perKey: 2 };
    const claimer = new Worker({ ...options, name: 'claimer', claimAhead: 2 });
    assert.equal((await claimer.claim()).length, 4, 'twice perKey held');
    assert.equal((await claimer.claim()).length, 0, 'and no more');
    await db.query("UPDATE jobs SET status = 'pending', locked_by = NULL, locked_until = NULL, attempts = 0");

    const worker = new Worker({ ...options, name: 'ahead', claimAhead: 2 });
    assert.equal(await worker.drain(), 10);
    assert.equal(most, 2, 'never more than perKey in flight');
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE status = 'succeeded' AND attempts = 1",
    );
    assert.equal(row?.n, 10);
  });

  it('only claims the kinds it has handlers for', async () => {
    await clearJobs();
    await enqueueJob(db, clock, 'test.other', {});
    const worker = new Worker({ db, clock, log: silent, handlers: { 'test.mine': async () => undefined } });
    assert.equal(await worker.drain(), 0);
    const [row] = await db.query<{ status: string }>('SELECT status FROM jobs');
    assert.equal(row?.status, 'pending');
  });

  it('the poll loop picks up new jobs and stops cleanly', async () => {
    await clearJobs();
    let resolveRan: () => void = () => undefined;
    const ran = new Promise<void>((resolve) => {
      resolveRan = resolve;
    });
    const worker = new Worker({
      db,
      clock,
      log: silent,
      pollIntervalMs: 10,
      handlers: { 'test.loop': async () => resolveRan() },
    });
    worker.start();
    await enqueueJob(db, clock, 'test.loop', {});
    worker.nudge();
    await ran;
    await worker.stop();
    const [row] = await db.query<{ status: string }>('SELECT status FROM jobs');
    assert.equal(row?.status, 'succeeded');
  });

  it('reports queue depth and the age of the oldest due job', async () => {
    await clearJobs();
    await enqueueJob(db, clock, 'test.stats', {});
    clock.advance(30_000);
    await enqueueJob(db, clock, 'test.stats', {});
    await enqueueJob(db, clock, 'test.stats', {}, { runAt: new Date(clock.now().getTime() + 60_000) });
    const stats = await queueStats(db, clock);
    assert.equal(stats.pending, 3);
    assert.equal(stats.oldestPendingAgeSeconds, 30);
  });
});
