import type { MethodFee } from '../integrators/service.ts';

/** Contract §2 Limits: the amount the tenant pays for (before the fee), in pence. */
export const MIN_PURE_AMOUNT_PENCE = 100;
export const MAX_PURE_AMOUNT_PENCE = 10_000_000;

export interface PaymentAmounts {
  purePence: number;
  feePence: number;
  amountPence: number;
}

/**
 * fee = round_half_up(pure × percent_bps / 10000) + fixed; amount = pure + fee. Integer arithmetic
 * throughout: pure ≤ 10^7 and bps ≤ 10^4 keep every product far below 2^53.
 */
export function paymentAmounts(purePence: number, fee: MethodFee | undefined): PaymentAmounts {
  const percentPart = fee ? Math.floor((purePence * fee.percent_bps + 5_000) / 10_000) : 0;
  const feePence = percentPart + (fee?.fixed_pence ?? 0);
  return { purePence, feePence, amountPence: purePence + feePence };
}
