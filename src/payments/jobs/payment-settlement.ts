import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { SettlementService } from '../settlement.ts';

/**
 * Asks the processor when a succeeded payment's funds become available and records it (processors that settle
 * later: Stripe). Hourly after the first few retries: a day of asking before it gives up (the operator sees it failed).
 */
export const paymentSettlementJob = defineJob({
  kind: 'payment.settlement',
  summary:
    'Records when a succeeded payment’s funds become available for payout (processors that settle later)',
  payload: Type.Object({ payment_id: Type.String() }),
  retry: { ...STANDARD_RETRY, maxAttempts: 30 },
  dedupeKey: ({ payment_id }) => `payment.settlement:${payment_id}`,
  run:
    (settlement: Pick<SettlementService, 'recordFundsAvailability'>) =>
    async ({ payment_id }, ctx) => {
      const result = await settlement.recordFundsAvailability(payment_id);
      ctx.log.info({ payment_id, result }, 'payment settlement checked');
    },
});
