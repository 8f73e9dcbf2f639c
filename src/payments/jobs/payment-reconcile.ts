import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { PaymentService } from '../service.ts';

/** How long a payment may stay `processing` before the reconciliation job asks the processor again. */
export const RECONCILE_AFTER_MS = 30_000;

/** Asks the processor again about a payment left `processing` (a crash, a timeout). */
export const paymentReconcileJob = defineJob({
  kind: 'payment.reconcile',
  summary: 'Asks the processor again about a payment left processing (a crash, a timeout)',
  payload: Type.Object({ payment_id: Type.String() }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ payment_id }) => `payment-reconcile:${payment_id}`,
  run:
    (payments: PaymentService) =>
    async ({ payment_id }, ctx) => {
      const payment = await payments.reconcile(payment_id);
      ctx.log.info({ payment_id, status: payment?.status }, 'payment reconciled');
    },
});
