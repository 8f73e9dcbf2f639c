import type { MethodFee } from '../integrators/service.ts';
import { feeOf } from '../shared/money.ts';

export interface PaymentAmounts {
  purePence: number;
  feePence: number;
  amountPence: number;
}

/** The method's fee (feeOf) on a pure amount, and the total: amount = pure + fee. */
export function paymentAmounts(purePence: number, fee: MethodFee | undefined): PaymentAmounts {
  const feePence = feeOf(purePence, fee && { percentBps: fee.percent_bps, fixedPence: fee.fixed_pence });
  return { purePence, feePence, amountPence: purePence + feePence };
}
