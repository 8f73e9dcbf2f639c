import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';

/**
 * A recurring charge that waited for its tenant past its confirm-by day is withdrawn and failed (nothing if the
 * tenant completed it meanwhile, or it has ended otherwise).
 */
export const scheduleActionExpireJob = defineJob({
  kind: 'schedule.action_expire',
  summary: 'Fails a recurring charge that waited for its tenant’s authentication past its confirm-by day',
  payload: Type.Object({ payment_id: Type.String() }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ payment_id }) => `schedule.action_expire:${payment_id}`,
  run:
    (expireWaiting: (paymentId: string) => Promise<unknown>) =>
    async ({ payment_id }, ctx) => {
      await expireWaiting(payment_id);
      ctx.log.info({ payment_id }, 'waiting recurring charge expired');
    },
});
