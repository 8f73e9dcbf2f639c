import type { MethodFee } from '../integrators/service.ts';
import { FieldValidationError } from '../platform/http/errors.ts';
import { formatPence } from '../platform/money.ts';

/** Contract §2 Limits: the amount the tenant pays for (before the fee), in pence. */
export const MIN_PURE_AMOUNT_PENCE = 100;
export const MAX_PURE_AMOUNT_PENCE = 10_000_000;

/** "1.00 to 100000.00", for messages. */
export const PURE_AMOUNT_LIMITS = `${formatPence(MIN_PURE_AMOUNT_PENCE)} to ${formatPence(MAX_PURE_AMOUNT_PENCE)}`;

/** Whether a pure amount is within the payment limits (contract §2 Limits). */
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

/**
 * fee = round_half_up(pure × percent_bps / 10000) + fixed; amount = pure + fee. Integer arithmetic
 * throughout: pure ≤ 10^7 and bps ≤ 10^4 keep every product far below 2^53.
 */
export function paymentAmounts(purePence: number, fee: MethodFee | undefined): PaymentAmounts {
  const percentPart = fee ? Math.floor((purePence * fee.percent_bps + 5_000) / 10_000) : 0;
  const feePence = percentPart + (fee?.fixed_pence ?? 0);
  return { purePence, feePence, amountPence: purePence + feePence };
}
