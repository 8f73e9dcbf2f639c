import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import type { Db } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { enqueueJob, JOBS_CHANNEL } from '../../src/platform/jobs/queue.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { createTestDatabase, type TestDatabase } from '../support/helpers.ts';

const silent = createLogger('silent');

describe('job worker: slots and wake-ups', () => {
  let database: TestDatabase;
  let db: Db;
  const clock = new FakeClock('2026-05-01T00:00:00.000Z');

  before(async () => {
    database = await createTestDatabase();
    db = await database.open();
    await migrate(db);
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  it('refills a slot as soon as its job ends: one slow job does not hold up the others', async () => {
    await db.query('DELETE FROM jobs');
    const finished: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const slowGate = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    await enqueueJob(db, clock, 'test.slow', {});
    for (let i = 0; i < 6; i++) await enqueueJob(db, clock, 'test.quick', { i });
    const worker = new Worker({
      db,
      clock,
      log: silent,
      concurrency: 2,
      handlers: {
        'test.slow': async () => {
          await slowGate;
          finished.push('slow');
        },
        'test.quick': async ({ job }) => {
          finished.push(`quick ${job.payload.i}`);
          if (finished.length === 6) releaseSlow();
        },
      },
    });
    assert.equal(await worker.drain(), 7);
    assert.equal(
      finished.at(-1),
      'slow',
      'all six quick jobs ran in the other slot while the slow one waited',
    );
  });

  it('an idle worker with a wake channel runs a job as soon as the transaction that notifies commits', async () => {
    await db.query('DELETE FROM jobs');
    let ran: () => void = () => undefined;
    const ranAt = new Promise<void>((resolve) => {
      ran = resolve;
    });
    let firstPollDone: () => void = () => undefined;
    const firstPoll = new Promise<void>((resolve) => {
      firstPollDone = resolve;
    });
    await enqueueJob(db, clock, 'test.first', {});
    const worker = new Worker({
      db,
      clock,
      log: silent,
      pollIntervalMs: 60_000,
      wakeChannel: JOBS_CHANNEL,
      handlers: {
        'test.first': async () => firstPollDone(),
        'test.wake': async () => ran(),
      },
    });
    worker.start();
    try {
      // After its first job and the listen, the worker would sleep for a minute without a wake-up.
      await Promise.all([firstPoll, worker.listening()]);
      await db.transaction(async (tx) => {
        await enqueueJob(tx, clock, 'test.wake', {});
        await tx.notifyOnCommit(JOBS_CHANNEL, 'test.wake');
      });
      // Without the wake-up the job would wait for the next poll, a minute away.
      await Promise.race([
        ranAt,
        new Promise<void>((_, reject) =>
          setTimeout(() => reject(new Error('not woken within half the poll interval')), 30_000),
        ),
      ]);
    } finally {
      await worker.stop();
    }
  });

  it('a notification inside a transaction that rolls back wakes nobody', async () => {
    await db.query('DELETE FROM jobs');
    // A channel of this test's own: NOTIFY is database-wide, and suites running beside it on the same PostgreSQL
    // database (other schemas) notify JOBS_CHANNEL too.
    const channel = `rentpay_test_${process.pid}_${Date.now()}`;
    let wakes = 0;
    let woken: () => void = () => undefined;
    const firstWake = new Promise<void>((resolve) => {
      woken = resolve;
    });
    const stop = await db.listen(channel, () => {
      wakes += 1;
      woken();
    });
    try {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.notifyOnCommit(channel, 'x');
          throw new Error('roll back');
        }),
        /roll back/,
      );
      // Notifications arrive in commit order, so a leaked 'x' would have arrived before 'y'.
      await db.transaction(async (tx) => {
        await tx.notifyOnCommit(channel, 'y');
        await tx.notifyOnCommit(channel, 'y');
      });
      await firstWake;
      assert.equal(wakes, 1, 'only the committed notification arrived');
    } finally {
      await stop();
    }
  });
});
