import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { enqueuePeriodicJob, type PeriodicJob } from '../platform/jobs/periodic.ts';
import type { JobHandler } from '../platform/jobs/queue.ts';
import { utcDate } from '../shared/dates.ts';
import type { AttemptRequest } from './charge-rules.ts';
import { SCHEDULES_RUN_JOB, type Scheduler } from './scheduler.ts';

/** How often each worker process enqueues a scheduler run; all of them together make one run per period. */
export const SCHEDULER_TICK_MS = 10 * 60_000;

/** The scheduler run of each period (`as_of`: that day), enqueued once per period whatever the number of nodes. */
export function schedulerRunJob(tickMs = SCHEDULER_TICK_MS): PeriodicJob {
  return {
    kind: SCHEDULES_RUN_JOB,
    everyMs: tickMs,
    payload: (now) => ({ as_of: utcDate(now) }),
    maxAttempts: 3,
  };
}

/** Enqueues the scheduler run of the current period (periods align with midnight UTC, so `as_of` is the same whichever node enqueued it). */
export function enqueueSchedulerRun(
  db: Queryable,
  clock: Clock,
  tickMs = SCHEDULER_TICK_MS,
): Promise<string | undefined> {
  return enqueuePeriodicJob(db, clock, schedulerRunJob(tickMs));
}

/** Payload `{as_of?}`: every due date reached up to as_of (default today), and each due charge's attempt enqueued. */
export function schedulesRunHandler(scheduler: Scheduler): JobHandler {
  return async (ctx) => {
    const asOf = typeof ctx.job.payload.as_of === 'string' ? ctx.job.payload.as_of : utcDate(ctx.clock.now());
    const run = scheduler;
    const reached = await run.reach(asOf, { enqueue: true });
    const queued = await run.enqueueDue(asOf);
    ctx.log.info(
      { as_of: asOf, charges: reached.length, attempts_queued: queued + reached.length },
      'schedules run',
    );
  };
}

/** Payload `{charges: [{schedule_id, due_date, attempt}]}`: those attempts, each once (a repeat does nothing). */
export function scheduleChargeHandler(scheduler: Scheduler): JobHandler {
  return async (ctx) => {
    const requests = (ctx.job.payload.charges as AttemptRequest[]).map((c) => ({
      schedule_id: String(c.schedule_id),
      due_date: String(c.due_date),
      attempt: Number(c.attempt),
    }));
    const outcomes = await scheduler.attemptAll(requests, utcDate(ctx.clock.now()), ctx.complete);
    const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
    ctx.log.info(
      {
        charges: requests.length,
        succeeded: count('succeeded'),
        failed: count('failed'),
        waiting: count('waiting'),
        skipped: count('skipped'),
      },
      'schedule charges attempted',
    );
  };
}

/** Payload `{payment_id}`: fails a recurring charge that waited for its tenant too long (nothing if it has ended). */
export function scheduleActionExpireHandler(
  expireWaiting: (paymentId: string) => Promise<unknown>,
): JobHandler {
  return async (ctx) => {
    const paymentId = String(ctx.job.payload.payment_id);
    await expireWaiting(paymentId);
    ctx.log.info({ payment_id: paymentId }, 'waiting recurring charge expired');
  };
}
