import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { RefundService } from '../refunds.ts';

/** How long a refund may stay `pending` before its job asks the processor again (with the same key). */
export const REFUND_RETRY_AFTER_MS = 2 * 60_000;

/** Finishes a refund left `pending` (the processor's answer was lost, or the process died); a finished one stays. */
export const paymentRefundJob = defineJob({
  kind: 'payment.refund',
  summary: 'Finishes a refund left pending, asking the processor again with the same idempotency key',
  payload: Type.Object({ refund_id: Type.String() }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ refund_id }) => `payment-refund:${refund_id}`,
  run:
    (refunds: Pick<RefundService, 'finishRefund'>) =>
    async ({ refund_id }, ctx) => {
      const { refund } = await refunds.finishRefund(refund_id);
      ctx.log.info({ refund_id, payment_id: refund.payment_id, status: refund.status }, 'refund checked');
    },
});
