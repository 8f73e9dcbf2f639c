/**
 * Jobs as typed values: every kind is declared once (src/jobs.ts lists them), the operations docs' job table lists
 * exactly those kinds with their attempts, and a worker refuses a payload its kind's schema does not describe:
 * the job fails at once, saying why, and its handler never runs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JOBS, PERIODIC_JOBS } from '../../src/jobs.ts';
import { paymentExpireJob } from '../../src/payments/jobs/payment-expire.ts';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import type { Db } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { enqueue, jobHandler } from '../../src/platform/jobs/define.ts';
import { enqueueJob } from '../../src/platform/jobs/queue.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { createTestDatabase, type TestDatabase } from '../support/helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The rows of the job table in docs/operations.md: kind → attempts. */
function documentedJobs(): Map<string, number> {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const table = text.slice(text.indexOf('Job kinds today'));
  const rows = new Map<string, number>();
  for (const match of table.matchAll(/^\| `([a-z._-]+)` \| (\d+) \|/gm)) {
    assert.ok(!rows.has(match[1]!), `${match[1]} is listed twice`);
    rows.set(match[1]!, Number(match[2]));
  }
  return rows;
}

describe('job definitions', () => {
  it('each kind is declared once', () => {
    const kinds = JOBS.map((job) => job.kind);
    assert.equal(new Set(kinds).size, kinds.length);
    assert.ok(kinds.length >= 15);
    for (const job of JOBS) {
      assert.ok(job.summary.length > 10, `${job.kind} says what it does`);
      assert.ok(
        job.retry.maxAttempts >= 1 && job.retry.delaysMs.length >= 1,
        `${job.kind} has a retry policy`,
      );
    }
    assert.deepEqual(PERIODIC_JOBS.map((job) => job.kind).sort(), [
      'jobs.prune',
      'ledger.reminders',
      'schedules.run',
    ]);
  });

  it('the job table in docs/operations.md lists exactly these kinds, each with its attempts', () => {
    const documented = documentedJobs();
    assert.deepEqual(
      [...documented.keys()].sort(),
      JOBS.map((job) => job.kind).sort(),
      'docs/operations.md and src/jobs.ts list the same job kinds',
    );
    for (const job of JOBS) {
      assert.equal(documented.get(job.kind), job.retry.maxAttempts, `${job.kind}: attempts in the docs`);
    }
  });
});

describe('a worker and a job’s payload', () => {
  let database: TestDatabase;
  let db: Db;
  const clock = new FakeClock('2026-03-01T09:00:00.000Z');
  const canceled: string[] = [];
  let worker: Worker;

  before(async () => {
    database = await createTestDatabase();
    db = await database.open();
    await migrate(db);
    const payments = {
      cancel: async (id: string) => {
        canceled.push(id);
        return undefined;
      },
    };
    worker = new Worker({
      db,
      clock,
      log: createLogger('silent'),
      handlers: { [paymentExpireJob.kind]: jobHandler(paymentExpireJob, payments as never) },
    });
  });
  after(async () => {
    await db?.close();
    await database?.drop();
  });

  it('runs a job whose payload matches, with the payload typed', async () => {
    await enqueue(db, clock, paymentExpireJob, { payment_id: 'pay_matching' });
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(canceled, ['pay_matching']);
    const [job] = await db.query<{ status: string; dedupe_key: string; max_attempts: number }>(
      'SELECT status, dedupe_key, max_attempts FROM jobs',
    );
    assert.deepEqual(job, {
      status: 'succeeded',
      dedupe_key: 'payment-expire:pay_matching',
      max_attempts: 10,
    });
  });

  it('fails a job whose payload does not match at once, saying why, without running it or retrying', async () => {
    await db.query('DELETE FROM jobs');
    canceled.length = 0;
    await enqueueJob(db, clock, paymentExpireJob.kind, { payment_id: 42 });
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(canceled, []);
    const [job] = await db.query<{ status: string; attempts: number; last_error: string }>(
      'SELECT status, attempts, last_error FROM jobs',
    );
    assert.equal(job?.status, 'failed');
    assert.equal(job?.attempts, 1);
    assert.match(job?.last_error ?? '', /payload of payment\.expire does not match its schema: \/payment_id/);
  });
});
