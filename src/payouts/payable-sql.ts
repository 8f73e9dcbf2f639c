/**
 * The SQL of what is payable to landlords, shared by payout runs and `reconcile`, so the auditor checks the rule the
 * runs apply and not a copy of it.
 */

/**
 * One row per refund, and one per payment lost to a dispute (which takes money back as a refund does):
 * `kind` ('refund' | 'dispute'), `refund_id` (null for a dispute), `payment_id`, `status`, `created_at` (a dispute's:
 * when it was lost), `rent_pence`. Refunds and disputes give the payment's rent back first and its fee last, in the
 * order they happened, so `rent_pence` is the part of this one that comes out of the rent; 0 for a refund that has
 * not succeeded. The ledger applies the same rule to the same rows in the same order.
 */
export const REFUND_RENT_PARTS = refundRentParts();

/** REFUND_RENT_PARTS of the payments (alias p) `only` names, e.g. `p.tenancy_id IN (…)`; all without it. */
function refundRentParts(only?: string): string {
  return `
  SELECT x.kind, x.refund_id, x.payment_id, x.status, x.created_at,
         LEAST(p.pure_amount_pence, COALESCE(sum(x.amount_pence) FILTER (WHERE x.status = 'succeeded') OVER w, 0))
           - LEAST(p.pure_amount_pence,
                   COALESCE(sum(x.amount_pence) FILTER (WHERE x.status = 'succeeded') OVER w, 0)
                     - CASE WHEN x.status = 'succeeded' THEN x.amount_pence ELSE 0 END) AS rent_pence
    FROM (SELECT 'refund' AS kind, r.id AS refund_id, r.payment_id, r.status, r.created_at, r.amount_pence
            FROM refunds r
          UNION ALL
          SELECT 'dispute', NULL, d.id, 'succeeded', d.dispute_lost_at, d.dispute_amount_pence
            FROM payments d WHERE d.dispute_status = 'lost') x
    JOIN payments p ON p.id = x.payment_id${
      only === undefined
        ? ''
        : `
   WHERE ${only}`
    }
  WINDOW w AS (PARTITION BY x.payment_id ORDER BY x.created_at, x.kind = 'dispute', x.refund_id)`;
}

/**
 * A payment whose rent may be paid out as of `asOf`, for alias `p`: succeeded by then, not under an open dispute, and
 * its funds available by then, and by `today` (a run dated ahead cannot pay funds not yet available). A dispute lost
 * does not stop it: what the dispute took back is a negative line, as a refund is.
 */
function settledBy(asOf: string, today: string): string {
  return `p.status = 'succeeded' AND (p.created_at AT TIME ZONE 'UTC')::date <= ${asOf}
      AND p.funds_available_at IS NOT NULL
      AND (p.funds_available_at AT TIME ZONE 'UTC')::date <= LEAST(${asOf}, ${today})
      AND (p.dispute_status IS NULL OR p.dispute_status <> 'open')`;
}

/**
 * Every line not yet in a live payout, as of day $1 (today: $2):
 * - each settled payment's rent;
 * - each succeeded refund's rent part, and each lost dispute's, as a negative, once its payment is settled or paid
 *   to the landlord (in a confirmed payout): one after the payment was paid is the negative carried into the
 *   tenancy's next payout. A payment disputed in full nets to nothing; its lines wait until other rent covers them;
 * - for a refund that failed after a live payout deducted its rent part, that part given back (`refund_reversal`).
 */
export const PAYABLE_LINES = payableLines();

/**
 * PAYABLE_LINES of the tenancies $3 names (a JSON array of tenancy ids) only. A tenancy's lines depend on its own
 * payments, refunds and payout lines alone, so they are the same as in PAYABLE_LINES; reading only those keeps a
 * platform's page (held rent) from reading every payment ever made.
 */
export const PAYABLE_LINES_OF_TENANCIES = payableLines('(SELECT jsonb_array_elements_text($3::jsonb))');

function payableLines(tenancies?: string): string {
  const only = (column: string) => (tenancies === undefined ? '' : ` AND ${column} IN ${tenancies}`);
  return `
  WITH settled AS (
    SELECT p.id, p.tenancy_id, p.pure_amount_pence
      FROM payments p
     WHERE ${settledBy('$1::date', '$2::date')}${only('p.tenancy_id')}
  ), paid AS (
    SELECT l.payment_id FROM payout_lines l JOIN payouts po ON po.id = l.payout_id
     WHERE l.kind = 'payment' AND l.active AND po.status = 'paid'${only('po.tenancy_id')}
  ), refund_parts AS (${tenancies === undefined ? REFUND_RENT_PARTS : refundRentParts(`p.tenancy_id IN ${tenancies}`)}
  ), lines AS (
    SELECT s.tenancy_id, 'payment' AS kind, s.id AS payment_id, NULL::text AS refund_id,
           s.pure_amount_pence AS amount_pence
      FROM settled s
     WHERE NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.payment_id = s.id AND l.kind = 'payment' AND l.active)
    UNION ALL
    SELECT p.tenancy_id, rp.kind, rp.payment_id, rp.refund_id, -rp.rent_pence
      FROM refund_parts rp JOIN payments p ON p.id = rp.payment_id
     WHERE rp.rent_pence > 0 AND (rp.created_at AT TIME ZONE 'UTC')::date <= $1::date
       AND (rp.payment_id IN (SELECT id FROM settled) OR rp.payment_id IN (SELECT payment_id FROM paid))
       AND CASE WHEN rp.kind = 'refund'
                THEN NOT EXISTS (SELECT 1 FROM payout_lines l
                                  WHERE l.refund_id = rp.refund_id AND l.kind = 'refund' AND l.active)
                ELSE NOT EXISTS (SELECT 1 FROM payout_lines l
                                  WHERE l.payment_id = rp.payment_id AND l.kind = 'dispute' AND l.active) END
    UNION ALL
    SELECT p.tenancy_id, 'refund_reversal', l.payment_id, l.refund_id, -l.amount_pence
      FROM payout_lines l JOIN refunds r ON r.id = l.refund_id JOIN payments p ON p.id = l.payment_id
     WHERE l.kind = 'refund' AND l.active AND r.status = 'failed'${only('p.tenancy_id')}
       AND NOT EXISTS (SELECT 1 FROM payout_lines v
                        WHERE v.refund_id = l.refund_id AND v.kind = 'refund_reversal' AND v.active)
  )
  SELECT l.tenancy_id, l.kind, l.payment_id, l.refund_id, l.amount_pence, t.integrator_id, t.payment_reference,
         t.recipient_bank_sort_code, t.recipient_bank_account_number, t.recipient_bank_account_name
    FROM lines l JOIN tenancies t ON t.id = l.tenancy_id
   ORDER BY l.tenancy_id, l.payment_id, l.kind <> 'payment', l.refund_id NULLS FIRST`;
}
