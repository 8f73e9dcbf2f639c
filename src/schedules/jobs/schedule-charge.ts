import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import { utcDate } from '../../shared/dates.ts';
import { attemptKey } from '../charge-rules.ts';
import type { Scheduler } from '../scheduler.ts';

/** Attempts one charge job makes: their payments and events are recorded in one transaction. */
export const CHARGES_PER_JOB = 20;

const ChargeAttempt = Type.Object({
  schedule_id: Type.String(),
  due_date: Type.String({ format: 'date' }),
  attempt: Type.Integer({ minimum: 1 }),
});

/**
 * One attempt at each of up to CHARGES_PER_JOB due charges of recurring rent, each once (a repeat does nothing).
 * An attempt is enqueued once (queued_attempt, under the charge's row lock) and its key says so again, except for
 * attempts enqueued `again` after their earlier job ended without recording them: the locked charge row says which
 * job is the live one. Retried for about two days while the processor cannot be reached.
 */
export const scheduleChargeJob = defineJob({
  kind: 'schedule.charge',
  summary: 'Charges due recurring rent (up to 20 charges a job), each attempt once',
  payload: Type.Object({
    charges: Type.Array(ChargeAttempt, { minItems: 1, maxItems: CHARGES_PER_JOB }),
    again: Type.Optional(Type.Boolean()),
  }),
  retry: { ...STANDARD_RETRY, maxAttempts: 48 },
  dedupeKey: ({ charges, again }) =>
    again ? undefined : `schedule.charge:${attemptKey(charges[0]!, charges[0]!.attempt)}`,
  run:
    (scheduler: Pick<Scheduler, 'attemptAll'>) =>
    async ({ charges }, ctx) => {
      const outcomes = await scheduler.attemptAll(charges, utcDate(ctx.clock.now()), ctx.complete);
      const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
      ctx.log.info(
        {
          charges: charges.length,
          succeeded: count('succeeded'),
          failed: count('failed'),
          waiting: count('waiting'),
          skipped: count('skipped'),
        },
        'schedule charges attempted',
      );
    },
});
