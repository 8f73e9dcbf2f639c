import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.ts';
import type { Queryable } from '../db/db.ts';
import type { AnyJobDefinition } from './define.ts';
import { enqueueJob } from './queue.ts';

/**
 * Enqueues the job of the current period (the definition's `every`, or `everyMs` when given). Its dedupe key is the
 * period, so any number of nodes ticking in the same period (at any phase) enqueue it once. Periods align with the
 * Unix epoch (so with midnight UTC for any period that divides a day).
 */
export function enqueuePeriodicJob(
  db: Queryable,
  clock: Clock,
  job: AnyJobDefinition,
  everyMs = periodOf(job),
): Promise<string | undefined> {
  const now = clock.now();
  const period = new Date(Math.floor(now.getTime() / everyMs) * everyMs).toISOString();
  return enqueueJob(db, clock, job.kind, (job.every?.payload(now) ?? {}) as Record<string, unknown>, {
    dedupeKey: `${job.kind}:${period}`,
    maxAttempts: job.retry.maxAttempts,
  });
}

function periodOf(job: AnyJobDefinition): number {
  if (!job.every) throw new Error(`job ${job.kind} is not periodic`);
  return job.every.ms;
}

export interface PeriodicTicker {
  /** Stops ticking and waits for a tick in progress. */
  stop(): Promise<void>;
}

/** Beside a job worker (`serve`, `worker`): the periodic job now and then once every period. */
export function startPeriodicJob(
  db: Queryable,
  clock: Clock,
  log: Logger,
  job: AnyJobDefinition,
): PeriodicTicker {
  let inFlight: Promise<unknown> = Promise.resolve();
  const tick = () => {
    inFlight = enqueuePeriodicJob(db, clock, job).catch((error) =>
      log.warn({ err: (error as Error).message, job_kind: job.kind }, 'could not enqueue a periodic job'),
    );
  };
  tick();
  const timer = setInterval(tick, periodOf(job));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
