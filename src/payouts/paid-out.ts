import type { Queryable } from '../platform/db/db.ts';

/** Every transaction that makes, confirms or cancels a payout run holds this advisory lock, on every node. */
export const PAYOUT_LOCK = 727_274_001;

/**
 * Whether the payment's rent is in a payout of a confirmed run (not one merely created, nor canceled), for a change
 * that must not follow a payout. It holds the payout lock shared until `tx` ends, so no run is confirmed between
 * this answer and the change's commit. Call it before locking the payment's row: runs take the lock first and
 * then reference payments, and the same order on both sides cannot deadlock.
 */
export async function paidOutHeld(tx: Queryable, paymentId: string): Promise<boolean> {
  await tx.query('SELECT pg_advisory_xact_lock_shared($1)', [PAYOUT_LOCK]);
  const rows = await tx.query(
    `SELECT 1 FROM payout_lines l JOIN payouts po ON po.id = l.payout_id
      WHERE l.payment_id = $1 AND l.kind = 'payment' AND l.active AND po.status = 'paid'`,
    [paymentId],
  );
  return rows.length > 0;
}
