/**
 * The SQL of what is payable to landlords, shared by payout runs and `reconcile`, so the auditor checks the rule the
 * runs apply and not a copy of it.
 */

/**
 * One row per refund: `refund_id, payment_id, status, created_at, rent_pence`. A refund gives the payment's rent
 * back first and its fee last, so `rent_pence` is the part of this refund that comes out of the rent, given the
 * payment's succeeded refunds before it; 0 for a refund that has not succeeded.
 */
export const REFUND_RENT_PARTS = `
  SELECT r.id AS refund_id, r.payment_id, r.status, r.created_at,
         LEAST(p.pure_amount_pence, COALESCE(sum(r.amount_pence) FILTER (WHERE r.status = 'succeeded') OVER w, 0))
           - LEAST(p.pure_amount_pence,
                   COALESCE(sum(r.amount_pence) FILTER (WHERE r.status = 'succeeded') OVER w, 0)
                     - CASE WHEN r.status = 'succeeded' THEN r.amount_pence ELSE 0 END) AS rent_pence
    FROM refunds r JOIN payments p ON p.id = r.payment_id
  WINDOW w AS (PARTITION BY r.payment_id ORDER BY r.created_at, r.id)`;

/**
 * A payment whose rent may be paid out as of `asOf` (an SQL date expression), for alias `p`: succeeded by then,
 * its funds available by then, and not under a dispute or lost to one.
 */
export function settledBy(asOf: string): string {
  return `p.status = 'succeeded' AND (p.created_at AT TIME ZONE 'UTC')::date <= ${asOf}
      AND p.funds_available_at IS NOT NULL AND (p.funds_available_at AT TIME ZONE 'UTC')::date <= ${asOf}
      AND (p.dispute_status IS NULL OR p.dispute_status = 'won')`;
}

/**
 * Every line not yet in a live payout, as of day $1:
 * - each settled payment's rent;
 * - each succeeded refund's rent part as a negative, once its payment is settled or paid out (a refund of a payment
 *   already paid out is the negative carried into the tenancy's next payout);
 * - for a payment paid out and then lost to a dispute, minus the rent the landlord still holds from it.
 */
export const PAYABLE_LINES = `
  WITH settled AS (
    SELECT p.id, p.tenancy_id, p.pure_amount_pence
      FROM payments p
     WHERE ${settledBy('$1::date')}
  ), paid_out AS (
    SELECT l.payment_id FROM payout_lines l WHERE l.kind = 'payment' AND l.active
  ), refund_parts AS (${REFUND_RENT_PARTS}
  ), lines AS (
    SELECT s.tenancy_id, 'payment' AS kind, s.id AS payment_id, NULL::text AS refund_id,
           s.pure_amount_pence AS amount_pence
      FROM settled s
     WHERE NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.payment_id = s.id AND l.kind = 'payment' AND l.active)
    UNION ALL
    SELECT p.tenancy_id, 'refund', rp.payment_id, rp.refund_id, -rp.rent_pence
      FROM refund_parts rp JOIN payments p ON p.id = rp.payment_id
     WHERE rp.rent_pence > 0 AND (rp.created_at AT TIME ZONE 'UTC')::date <= $1::date
       AND (rp.payment_id IN (SELECT id FROM settled) OR rp.payment_id IN (SELECT payment_id FROM paid_out))
       AND NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.refund_id = rp.refund_id AND l.active)
    UNION ALL
    SELECT p.tenancy_id, 'dispute', p.id, NULL,
           -(p.pure_amount_pence - COALESCE((SELECT sum(rp.rent_pence) FROM refund_parts rp WHERE rp.payment_id = p.id), 0))
      FROM payments p
     WHERE p.dispute_status = 'lost' AND p.id IN (SELECT payment_id FROM paid_out)
       AND NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.payment_id = p.id AND l.kind = 'dispute' AND l.active)
  )
  SELECT l.tenancy_id, l.kind, l.payment_id, l.refund_id, l.amount_pence, t.integrator_id, t.payment_reference,
         t.recipient_bank_sort_code, t.recipient_bank_account_number, t.recipient_bank_account_name
    FROM lines l JOIN tenancies t ON t.id = l.tenancy_id
   WHERE l.amount_pence <> 0
   ORDER BY l.tenancy_id, l.payment_id, l.kind <> 'payment', l.refund_id NULLS FIRST`;
