import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { PaymentService } from '../service.ts';

/** At its session's expiry, withdraws a payment still waiting for the customer; does nothing otherwise. */
export const paymentExpireJob = defineJob({
  kind: 'payment.expire',
  summary: 'At the session’s expiry, withdraws a payment still waiting for the customer (3DS, APM page)',
  payload: Type.Object({ payment_id: Type.String() }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ payment_id }) => `payment-expire:${payment_id}`,
  run:
    (payments: PaymentService) =>
    async ({ payment_id }, ctx) => {
      const payment = await payments.cancel(payment_id);
      ctx.log.info({ payment_id, status: payment?.status }, 'payment expiry checked');
    },
});
