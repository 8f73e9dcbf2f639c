import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.ts';
import type { Queryable } from '../db/db.ts';
import { type EnqueueOptions, enqueueJob } from './queue.ts';

export interface PeriodicJob {
  kind: string;
  everyMs: number;
  payload(now: Date): Record<string, unknown>;
  maxAttempts?: EnqueueOptions['maxAttempts'];
}

/**
 * Enqueues the job of the current period. Its dedupe key is the period, so any number of nodes ticking in the same
 * period (at any phase) enqueue it once. Periods align with the Unix epoch (so with midnight UTC for any period that
 * divides a day).
 */
export function enqueuePeriodicJob(
  db: Queryable,
  clock: Clock,
  job: PeriodicJob,
): Promise<string | undefined> {
  const now = clock.now();
  const period = new Date(Math.floor(now.getTime() / job.everyMs) * job.everyMs).toISOString();
  return enqueueJob(db, clock, job.kind, job.payload(now), {
    dedupeKey: `${job.kind}:${period}`,
    ...(job.maxAttempts === undefined ? {} : { maxAttempts: job.maxAttempts }),
  });
}

export interface PeriodicTicker {
  /** Stops ticking and waits for a tick in progress. */
  stop(): Promise<void>;
}

/** Beside a job worker (`serve`, `worker`): the periodic job now and then once every period. */
export function startPeriodicJob(db: Queryable, clock: Clock, log: Logger, job: PeriodicJob): PeriodicTicker {
  let inFlight: Promise<unknown> = Promise.resolve();
  const tick = () => {
    inFlight = enqueuePeriodicJob(db, clock, job).catch((error) =>
      log.warn({ err: (error as Error).message, job_kind: job.kind }, 'could not enqueue a periodic job'),
    );
  };
  tick();
  const timer = setInterval(tick, job.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
