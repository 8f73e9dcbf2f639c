import type { NotNull } from 'kysely';
import type { PaymentRow, PaymentRowNarrowing } from '../payments/view.ts';
import type { Queryable } from '../platform/db/db.ts';
import { qb, rows } from '../platform/db/query-builder.ts';
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
  const waiting = await rows(
    db,
    qb
      .selectFrom('payments as p')
      .innerJoin('schedule_charges as c', (join) =>
        join.onRef('c.last_payment_id', '=', 'p.id').on('c.status', '=', 'requires_action'),
      )
      .selectAll('p')
      .select((eb) => eb.cast<string | null>('c.first_attempt_on', 'text').as('first_attempt_on'))
      .where('p.user_id', '=', tenant.user_id)
      .where('p.integrator_id', '=', tenant.integrator_id)
      .where('p.status', '=', 'requires_action')
      .orderBy('p.created_at')
      .orderBy('p.id')
      // A charge waits for its tenant after its first attempt.
      .$narrowType<PaymentRowNarrowing & { first_attempt_on: NotNull }>(),
  );
  return waiting.map(({ first_attempt_on, ...payment }) => ({
    payment,
    confirmBy: confirmByOf(first_attempt_on),
  }));
}
