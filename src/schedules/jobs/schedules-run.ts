import { Type } from 'typebox';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { defineJob } from '../../platform/jobs/define.ts';
import { enqueuePeriodicJob } from '../../platform/jobs/periodic.ts';
import { utcDate } from '../../shared/dates.ts';
import type { Scheduler } from '../scheduler.ts';

/** How often each worker process enqueues a scheduler run; all of them together make one run per period. */
export const SCHEDULER_TICK_MS = 10 * 60_000;

/**
 * Reaches every schedule's due dates up to `as_of` (default today) and enqueues each due charge's attempt. Enqueued
 * once per period whatever the number of nodes (periods align with midnight UTC, so `as_of` is the same whichever
 * node enqueued it).
 */
export const schedulesRunJob = defineJob({
  kind: 'schedules.run',
  summary: 'Reaches every schedule’s due dates up to today and enqueues the due charges’ attempts',
  payload: Type.Object({ as_of: Type.Optional(Type.String({ format: 'date' })) }),
  retry: { maxAttempts: 3, delaysMs: [5_000, 30_000] },
  every: { ms: SCHEDULER_TICK_MS, payload: (now) => ({ as_of: utcDate(now) }) },
  run:
    (scheduler: Pick<Scheduler, 'reach' | 'enqueueDue'>) =>
    async ({ as_of }, ctx) => {
      const asOf = as_of ?? utcDate(ctx.clock.now());
      const reached = await scheduler.reach(asOf, { enqueue: true });
      const queued = await scheduler.enqueueDue(asOf);
      ctx.log.info(
        { as_of: asOf, charges: reached.length, attempts_queued: queued + reached.length },
        'schedules run',
      );
    },
});

/** Enqueues the scheduler run of the current period. */
export function enqueueSchedulerRun(
  db: Queryable,
  clock: Clock,
  tickMs = SCHEDULER_TICK_MS,
): Promise<string | undefined> {
  return enqueuePeriodicJob(db, clock, schedulesRunJob, tickMs);
}
