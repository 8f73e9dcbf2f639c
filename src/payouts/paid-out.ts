import type { Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { formatPence } from '../shared/money.ts';

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

/** Where a payment's rent stands with the landlord: in a confirmed payout, in a run not yet confirmed, or in none. */
export interface PaymentPayout {
  state: 'paid' | 'in_unconfirmed_run' | 'none';
  payout_id: string | null;
  payout_run_id: string | null;
  /** When its payout joined a run. */
  created_at: Date | null;
  paid_at: Date | null;
}

/** The payout carrying a payment's rent, if one does (a canceled run's payouts carry nothing). */
export async function paymentPayout(db: Queryable, paymentId: string): Promise<PaymentPayout> {
  const found = await firstRow(
    db,
    qb
      .selectFrom('payout_lines as l')
      .innerJoin('payouts as po', 'po.id', 'l.payout_id')
      .select(['po.id', 'po.payout_run_id', 'po.status', 'po.created_at', 'po.paid_at'])
      .where('l.payment_id', '=', paymentId)
      .where('l.kind', '=', 'payment')
      .where('l.active', '=', true),
  );
  if (!found) return { state: 'none', payout_id: null, payout_run_id: null, created_at: null, paid_at: null };
  return {
    state: found.status === 'paid' ? 'paid' : 'in_unconfirmed_run',
    payout_id: found.id,
    payout_run_id: found.payout_run_id,
    created_at: found.created_at,
    paid_at: found.paid_at,
  };
}

/** What a refund's rent part does to the landlord's payouts, for a person to read before refunding. */
export interface RefundPayoutEffect {
  /** The rent the landlord does not get (or gives back): the refund's rent part; its fee part is never paid out. */
  landlord_loses_pence: number;
  effect: 'less_payable' | 'after_unconfirmed_run' | 'carried_negative';
  explanation: string;
}

/**
 * The payout rule applied to one refund (PAYABLE_LINES): before its payment's rent is paid out, the rent part comes
 * off what the tenancy has to pay out; once paid out in a confirmed run, it is a negative carried into the tenancy's
 * next payout; while in a run not yet confirmed, that run still pays the rent and the next one deducts it.
 */
export function refundPayoutEffect(payout: PaymentPayout, rentPence: number): RefundPayoutEffect {
  const amount = formatPence(rentPence);
  if (rentPence === 0) {
    return {
      landlord_loses_pence: 0,
      effect: payout.state === 'paid' ? 'carried_negative' : 'less_payable',
      explanation: 'Only the fee is refunded: the landlord’s payouts do not change.',
    };
  }
  switch (payout.state) {
    case 'none':
      return {
        landlord_loses_pence: rentPence,
        effect: 'less_payable',
        explanation: `The rent has not been paid out yet: the tenancy’s next payout is £${amount} less.`,
      };
    case 'in_unconfirmed_run':
      return {
        landlord_loses_pence: rentPence,
        effect: 'after_unconfirmed_run',
        explanation:
          `The rent is in payout ${payout.payout_id} of run ${payout.payout_run_id}, not yet confirmed: that payout ` +
          `still pays it, and the tenancy’s next payout after it is £${amount} less.`,
      };
    case 'paid':
      return {
        landlord_loses_pence: rentPence,
        effect: 'carried_negative',
        explanation:
          `The rent was paid out to the landlord in payout ${payout.payout_id}: £${amount} is carried as a negative ` +
          'into the tenancy’s next payout.',
      };
  }
}
