import type { MethodFee } from '../integrators/service.ts';
import { FieldValidationError } from '../platform/errors.ts';
import { feeOf, formatPence, MAX_PURE_AMOUNT_PENCE, MIN_PURE_AMOUNT_PENCE } from '../shared/money.ts';

/** "1.00 to 100000.00", for messages. */
export const PURE_AMOUNT_LIMITS = `${formatPence(MIN_PURE_AMOUNT_PENCE)} to ${formatPence(MAX_PURE_AMOUNT_PENCE)}`;

/** Whether a pure amount is within the payment limits. */
export function amountInRange(purePence: number): boolean {
  return purePence >= MIN_PURE_AMOUNT_PENCE && purePence <= MAX_PURE_AMOUNT_PENCE;
}

/** 400 on `pure_amount` unless the amount is within the limits. */
export function checkPureAmount(purePence: number): void {
  if (!amountInRange(purePence)) {
    throw new FieldValidationError({ pure_amount: [`Enter an amount from ${PURE_AMOUNT_LIMITS}.`] });
  }
}

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
