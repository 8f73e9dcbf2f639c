import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enqueueJob } from '../../../src/platform/jobs/queue.ts';
import { Worker } from '../../../src/platform/jobs/worker.ts';
import { createLogger } from '../../../src/platform/log/logger.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { runJobs } from '../../support/helpers.ts';
import { type ConsoleApp, itRefusesPlatformPeople, startConsoleApp } from '../../support/operator-console.ts';

/** Asks again (not a fixed sleep: as soon as it holds) until `holds`, for what another loop writes. */
async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    assert.ok(Date.now() < deadline, `still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('GET /api/dashboard/operator/health/ (operatorGetHealth)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  const health = async () => {
    const answer = await c.opsSupport.get('/operator/health/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  it('200: the database answers, and the queue by kind: pending, due, running, failed, the oldest due job', async () => {
    await runJobs(c.t);
    const { t } = c;
    await enqueueJob(t.db, t.clock, 'test.report', { n: 1 });
    t.clock.advance(60_000);
    await enqueueJob(t.db, t.clock, 'test.report', { n: 2 });
    await enqueueJob(
      t.db,
      t.clock,
      'test.report',
      { n: 3 },
      { runAt: new Date(t.clock.now().getTime() + 3_600_000) },
    );
    t.clock.advance(30_000);
    const body = await health();
    assert.equal(body.checked_at, t.clock.now().toISOString());
    assert.equal(body.database.reachable, true);
    assert.equal(typeof body.database.round_trip_ms, 'number');
    const report = body.queue.find((kind: { kind: string }) => kind.kind === 'test.report');
    assert.deepEqual(report, {
      kind: 'test.report',
      pending: 3,
      due: 2,
      running: 0,
      failed: 0,
      oldest_due_at: new Date(t.clock.now().getTime() - 90_000).toISOString(),
      oldest_due_age_seconds: 90,
    });
    // A drained worker that was never started writes no heartbeat.
    assert.deepEqual(body.workers, []);
  });

  it('a started worker’s heartbeat: fresh, stale once its loop stops past the limit, fresh again, gone once stopped', async () => {
    const { t } = c;
    await t.db.query("DELETE FROM jobs WHERE kind = 'test.report'");
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let quick = 0;
    const worker = new Worker({
      db: t.db,
      clock: t.clock,
      log: createLogger('silent'),
      concurrency: 1,
      pollIntervalMs: 10,
      handlers: {
        // Holds the only slot: the loop waits for it and does not turn, as a hung worker's would not.
        'test.block': () => gate,
        'test.quick': async () => {
          quick += 1;
        },
      },
    });
    await enqueueJob(t.db, t.clock, 'test.block', {});
    const startedAt = t.clock.now().toISOString();
    worker.start();
    try {
      const fresh = await until(health, (body) => body.workers.length === 1);
      const [row] = fresh.workers;
      assert.equal(row.worker_id, worker.name);
      assert.equal(row.pid, process.pid);
      assert.equal(row.started_at, startedAt);
      assert.equal(row.last_beat_at, startedAt);
      assert.equal(row.stale_after_seconds, 30);
      assert.equal(row.stale, false);

      t.clock.advance(29_000);
      assert.deepEqual(
        (await health()).workers.map((w: { stale: boolean; last_beat_seconds_ago: number }) => [
          w.stale,
          w.last_beat_seconds_ago,
        ]),
        [[false, 29]],
      );
      t.clock.advance(1_000);
      assert.equal((await health()).workers[0].stale, true);

      // The job ends, the loop turns again and beats: the row is fresh, at the clock's time.
      release();
      const beaten = await until(health, (body) => body.workers[0]?.stale === false);
      assert.equal(beaten.workers[0].last_beat_at, t.clock.now().toISOString());

      // Jobs run without the clock moving a heartbeat interval: no more writes than one per interval.
      for (let i = 0; i < 5; i++) await enqueueJob(t.db, t.clock, 'test.quick', { i });
      worker.nudge();
      await until(
        async () => quick,
        (n) => n === 5,
      );
      await worker.beatRecorded();
      assert.equal((await health()).workers[0].last_beat_at, beaten.workers[0].last_beat_at);
    } finally {
      release();
      await worker.stop();
    }
    assert.deepEqual((await health()).workers, [], 'a worker that stops cleanly takes its row away');
  });

  it('operator_admin reads it too', async () => {
    assert.equal((await c.opsAdmin.get('/operator/health/')).status, 200);
  });

  itRefusesPlatformPeople(() => c, 'GET', '/operator/health/');
  itRefusesWithoutASession(() => c, 'GET', '/operator/health/');
});
