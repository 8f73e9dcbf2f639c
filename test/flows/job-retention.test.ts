/**
 * Job retention: the `jobs.prune` job deletes succeeded and failed jobs that finished longer ago than the retention,
 * in batches, and never a pending or running one; its periodic enqueue makes one job per period whatever the
 * number of nodes ticking.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import type { Db } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { enqueue, jobHandler } from '../../src/platform/jobs/define.ts';
import { enqueuePeriodicJob } from '../../src/platform/jobs/periodic.ts';
import { jobsPruneJob } from '../../src/platform/jobs/retention.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { createTestDatabase, type TestDatabase } from '../support/helpers.ts';

const DAY = 86_400_000;
const silent = createLogger('silent');

describe('job retention', () => {
  let database: TestDatabase;
  let db: Db;
  const clock = new FakeClock('2026-03-01T09:00:00.000Z');

  before(async () => {
    database = await createTestDatabase();
    db = await database.open();
    await migrate(db);
  });
  after(async () => {
    await db?.close();
    await database?.drop();
  });

  const counts = async () =>
    Object.fromEntries(
      (
        await db.query<{ status: string; count: number }>(
          "SELECT status, count(*)::int AS count FROM jobs WHERE kind <> 'jobs.prune' GROUP BY status ORDER BY status",
        )
      ).map((row) => [row.status, row.count]),
    );

  it('deletes finished jobs older than the retention, in batches, and nothing else', async () => {
    const finishedAt = (daysAgo: number) => new Date(clock.now().getTime() - daysAgo * DAY);
    // 2,500 old succeeded jobs (more than two batches), 3 old failed ones, 4 succeeded within the retention, and
    // unfinished jobs as old as any: a pending one and a running one.
    await db.query(
      `INSERT INTO jobs (id, kind, payload, status, run_at, created_at, updated_at, finished_at)
       SELECT 'job_old_' || n, 'test.any', '{}', $1, $2, $2, $2, $2 FROM generate_series(1, $3::int) AS n`,
      ['succeeded', finishedAt(8), 2_500],
    );
    await db.query(
      `INSERT INTO jobs (id, kind, payload, status, run_at, created_at, updated_at, finished_at)
       SELECT 'job_failed_' || n, 'test.any', '{}', 'failed', $1, $1, $1, $1 FROM generate_series(1, 3) AS n`,
      [finishedAt(30)],
    );
    await db.query(
      `INSERT INTO jobs (id, kind, payload, status, run_at, created_at, updated_at, finished_at)
       SELECT 'job_recent_' || n, 'test.any', '{}', 'succeeded', $1, $1, $1, $1 FROM generate_series(1, 4) AS n`,
      [new Date(finishedAt(7).getTime() + 1)],
    );
    await db.query(
      `INSERT INTO jobs (id, kind, payload, status, run_at, created_at, updated_at, locked_by, locked_until)
       VALUES ('job_pending', 'test.any', '{}', 'pending', $1, $1, $1, NULL, NULL),
              ('job_running', 'test.any', '{}', 'running', $1, $1, $1, 'someone', $2)`,
      [finishedAt(60), new Date(clock.now().getTime() + 30_000)],
    );
    assert.deepEqual(await counts(), { failed: 3, pending: 1, running: 1, succeeded: 2_504 });

    await enqueue(db, clock, jobsPruneJob, {});
    const worker = new Worker({
      db,
      clock,
      log: silent,
      handlers: { [jobsPruneJob.kind]: jobHandler(jobsPruneJob, 7 * DAY) },
    });
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(await counts(), { pending: 1, running: 1, succeeded: 4 });
    const recent = await db.query<{ id: string }>(
      "SELECT id FROM jobs WHERE status = 'succeeded' AND kind = 'test.any' ORDER BY id",
    );
    assert.deepEqual(
      recent.map((row) => row.id),
      ['job_recent_1', 'job_recent_2', 'job_recent_3', 'job_recent_4'],
    );

    // Those four are kept while exactly as old as the retention, and pruned once older.
    clock.advance(1);
    await enqueue(db, clock, jobsPruneJob, {});
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(await counts(), { pending: 1, running: 1, succeeded: 4 });
    clock.advance(1);
    await enqueue(db, clock, jobsPruneJob, {});
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(await counts(), { pending: 1, running: 1 });
  });

  it('is enqueued once per period by any number of nodes', async () => {
    await db.query("DELETE FROM jobs WHERE kind = 'jobs.prune'");
    const job = jobsPruneJob;
    await Promise.all([enqueuePeriodicJob(db, clock, job), enqueuePeriodicJob(db, clock, job)]);
    clock.advance(jobsPruneJob.every!.ms);
    await Promise.all([enqueuePeriodicJob(db, clock, job), enqueuePeriodicJob(db, clock, job)]);
    const [row] = await db.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM jobs WHERE kind = 'jobs.prune'",
    );
    assert.equal(row?.count, 2);
  });
});
