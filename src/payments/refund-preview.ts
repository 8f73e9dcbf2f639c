import { type Actor, actsForOperator } from '../audit/actor.ts';
import { refundRentParts } from '../ledger/balance.ts';
import {
  type PaymentPayout,
  paymentPayout,
  type RefundPayoutEffect,
  refundPayoutEffect,
} from '../payouts/paid-out.ts';
import type { Db } from '../platform/db/db.ts';
import { firstRow } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { assertSucceeded, paidOutRefusal, pendingRefundPence, refundAmount } from './refunds.ts';
import { paymentRows } from './rows.ts';
import type { PaymentRow } from './view.ts';

/** What a refund would do, before it is made: the page's confirmation. */
export interface RefundPreview {
  payment: PaymentRow;
  refund_pence: number;
  /** Its rent part (refunds give the rent back first) and its fee part. */
  rent_pence: number;
  fee_pence: number;
  /** Refundable before it (neither refunded nor being refunded) and after it. */
  remaining_pence: number;
  left_after_pence: number;
  payout: PaymentPayout;
  effect: RefundPayoutEffect;
  /** Why the refund would be refused although the amount is right (its rent is paid out), or null. */
  refusal: ServiceError | null;
}

/**
 * What a refund of `amountPence` (undefined: everything left) of the payment would take back, split into rent and
 * fee, and what it does to the landlord's payouts. Refused as the refund would be: 404, 409 when it did not succeed
 * or nothing is left, 400 on `amount` out of range; a paid-out payment that `actor` may not refund is answered with
 * its `refusal`, so the page can say why.
 */
export async function previewRefund(
  db: Db,
  paymentId: string,
  amountPence: number | undefined,
  actor: Actor,
): Promise<RefundPreview> {
  const payment = await firstRow(db, paymentRows().where('id', '=', paymentId));
  if (!payment) throw new ServiceError('not_found', `No payment ${paymentId}.`);
  assertSucceeded(payment);
  const pendingPence = await pendingRefundPence(db, paymentId);
  const { refundPence, remainingPence } = refundAmount(payment, pendingPence, amountPence);
  // Everything taken back before this refund, in the order the payout and ledger rules count it: this one comes last.
  const before =
    Number(payment.refunded_pence) +
    pendingPence +
    (payment.dispute_status === 'lost' ? Number(payment.dispute_amount_pence ?? 0) : 0);
  const [, rentPence = 0] = refundRentParts(Number(payment.pure_amount_pence), [before, refundPence]);
  const payout = await paymentPayout(db, paymentId);
  return {
    payment,
    refund_pence: refundPence,
    rent_pence: rentPence,
    fee_pence: refundPence - rentPence,
    remaining_pence: remainingPence,
    left_after_pence: remainingPence - refundPence,
    payout,
    effect: refundPayoutEffect(payout, rentPence),
    refusal: payout.state === 'paid' && !actsForOperator(actor) ? paidOutRefusal(paymentId, actor) : null,
  };
}
