import type { Queryable } from '../platform/db/db.ts';

/**
 * A recurring charge that waited for its tenant (`requires_action`) ends with its payment: paid when the payment
 * succeeded, failed otherwise. Called in the transaction that ends the payment; a charge not waiting is left alone.
 */
export async function settleWaitingCharge(
  tx: Queryable,
  payment: { id: string; status: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE schedule_charges SET status = $2, updated_at = $3
      WHERE last_payment_id = $1 AND status = 'requires_action'`,
    [payment.id, payment.status === 'succeeded' ? 'succeeded' : 'failed', now],
  );
}
