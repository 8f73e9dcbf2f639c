import type { PaymentRow } from '../payments/view.ts';
import type { Queryable } from '../platform/db/db.ts';
import { confirmByOf } from './charge-rules.ts';

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

/**
 * A tenant's recurring charges their bank wants them to authenticate, oldest first, each with the last day they can
 * confirm it.
 */
export async function chargesWaitingForTenant(
  db: Queryable,
  tenant: { user_id: string; integrator_id: string },
): Promise<{ payment: PaymentRow; confirmBy: string }[]> {
  const rows = await db.query<PaymentRow & { first_attempt_on: string }>(
    `SELECT p.*, c.first_attempt_on::text AS first_attempt_on
       FROM payments p JOIN schedule_charges c ON c.last_payment_id = p.id AND c.status = 'requires_action'
      WHERE p.user_id = $1 AND p.integrator_id = $2 AND p.status = 'requires_action'
      ORDER BY p.created_at, p.id`,
    [tenant.user_id, tenant.integrator_id],
  );
  return rows.map(({ first_attempt_on, ...payment }) => ({
    payment: payment as PaymentRow,
    confirmBy: confirmByOf(first_attempt_on),
  }));
}
