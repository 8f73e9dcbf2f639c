import { type Static, type TSchema, Type } from 'typebox';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable, SqlParam } from '../platform/db/db.ts';
import { formatPence } from '../shared/money.ts';
import { REFUND_RENT_PARTS } from './payable-sql.ts';

export interface Reconciliation {
  /** One sentence per mismatch, naming the payment, refund, payout or run. */
  mismatches: string[];
  checked: { payments: number; payouts: number; runs: number };
}

const money = (pence: number | string) => `£${formatPence(Number(pence))}`;

/** Days after a payment succeeded by which when its funds are available must be known (a settlement job failed). */
const SETTLEMENT_UNKNOWN_DAYS = 3;

/** Most checks' rows: ids, text, and amounts (numbers, or strings where the SQL sums them). */
const CHECK_ROW = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()]));

/** One invariant: the rows that break it, and a sentence for each. */
type Check = (db: Queryable, today: string) => Promise<string[]>;

function check<S extends TSchema>(
  row: S,
  text: string,
  describe: (row: Static<S>) => string,
  params: (today: string) => readonly SqlParam[] = () => [],
): Check {
  const statement = sqlStatement(row, text);
  return async (db, today) => (await statement.rows(db, params(today))).map(describe);
}

const CHECKS: readonly Check[] = [
  check(
    CHECK_ROW,
    `SELECT l.payment_id, count(*)::int AS n, string_agg(l.payout_id, ', ' ORDER BY l.payout_id) AS payouts
       FROM payout_lines l WHERE l.kind = 'payment' AND l.active GROUP BY l.payment_id HAVING count(*) > 1`,
    (r) => `payment ${r.payment_id} is paid out ${r.n} times (payouts ${r.payouts}).`,
  ),
  check(
    CHECK_ROW,
    `SELECT l.payment_id, l.payout_id, l.amount_pence, p.pure_amount_pence, p.status
       FROM payout_lines l JOIN payments p ON p.id = l.payment_id
      WHERE l.kind = 'payment' AND l.active AND (p.status <> 'succeeded' OR l.amount_pence <> p.pure_amount_pence)`,
    (r) =>
      r.status !== 'succeeded'
        ? `payment ${r.payment_id} is ${r.status} but payout ${r.payout_id} pays out its rent.`
        : `payment ${r.payment_id}: payout ${r.payout_id} pays out ${money(r.amount_pence!)} but its rent is ${money(r.pure_amount_pence!)}.`,
  ),
  check(
    Col.row({
      payment_id: Col.text,
      payout_id: Col.text,
      as_of: Col.text,
      funds_available_at: Col.nullable(Col.date),
    }),
    `SELECT l.payment_id, l.payout_id, r.as_of::text AS as_of, p.funds_available_at
       FROM payout_lines l JOIN payments p ON p.id = l.payment_id
       JOIN payouts po ON po.id = l.payout_id JOIN payout_runs r ON r.id = po.payout_run_id
      WHERE l.kind = 'payment' AND l.active
        AND (p.funds_available_at IS NULL
             OR (p.funds_available_at AT TIME ZONE 'UTC')::date
                  > LEAST(r.as_of, (r.created_at AT TIME ZONE 'UTC')::date))`,
    (r) =>
      `payment ${r.payment_id} is paid out by payout ${r.payout_id} (as of ${r.as_of}) before its funds were available${r.funds_available_at ? ` (${new Date(r.funds_available_at).toISOString().slice(0, 10)})` : ''}.`,
  ),
  check(
    CHECK_ROW,
    `SELECT p.id, (p.created_at AT TIME ZONE 'UTC')::date::text AS made_on
       FROM payments p
      WHERE p.status = 'succeeded' AND p.funds_available_at IS NULL
        AND (p.created_at AT TIME ZONE 'UTC')::date < $1::date - ${SETTLEMENT_UNKNOWN_DAYS}`,
    (r) =>
      `payment ${r.id} succeeded on ${r.made_on} but when its funds are available is still unknown, so no run can pay it out (see its payment.settlement job).`,
    (today) => [today],
  ),
  // A refund that failed after its rent part was deducted keeps its line: a reversal line gives the part back.
  check(
    CHECK_ROW,
    `WITH parts AS (${REFUND_RENT_PARTS})
     SELECT l.refund_id, l.payment_id, l.payout_id, -l.amount_pence AS deducted, parts.rent_pence, parts.status
       FROM payout_lines l JOIN parts ON parts.refund_id = l.refund_id JOIN refunds r ON r.id = l.refund_id
      WHERE l.kind = 'refund' AND l.active
        AND CASE WHEN parts.status = 'succeeded' THEN -l.amount_pence <> parts.rent_pence
                 ELSE r.reversed_at IS NULL END`,
    (r) =>
      `refund ${r.refund_id} of payment ${r.payment_id}: payout ${r.payout_id} deducts ${money(r.deducted!)} but its rent part is ${money(r.rent_pence ?? 0)} (${r.status}).`,
  ),
  check(
    CHECK_ROW,
    `SELECT v.refund_id, v.payout_id, v.amount_pence, r.status, l.amount_pence AS deducted
       FROM payout_lines v JOIN refunds r ON r.id = v.refund_id
       LEFT JOIN payout_lines l ON l.refund_id = v.refund_id AND l.kind = 'refund' AND l.active
      WHERE v.kind = 'refund_reversal' AND v.active
        AND (r.status <> 'failed' OR l.amount_pence IS NULL OR v.amount_pence <> -l.amount_pence)`,
    (r) =>
      r.status !== 'failed'
        ? `refund ${r.refund_id} is ${r.status} but payout ${r.payout_id} gives back its rent part as if it had failed.`
        : `refund ${r.refund_id}: payout ${r.payout_id} gives back ${money(r.amount_pence!)} but ${r.deducted === null ? 'no live payout deducted it' : `${money(-Number(r.deducted))} was deducted`}.`,
  ),
  check(
    CHECK_ROW,
    `WITH parts AS (${REFUND_RENT_PARTS})
     SELECT l.payment_id, l.payout_id, -l.amount_pence AS deducted, p.dispute_status, parts.rent_pence
       FROM payout_lines l JOIN payments p ON p.id = l.payment_id
       LEFT JOIN parts ON parts.payment_id = l.payment_id AND parts.kind = 'dispute'
      WHERE l.kind = 'dispute' AND l.active
        AND (p.dispute_status IS DISTINCT FROM 'lost' OR -l.amount_pence <> parts.rent_pence)`,
    (r) =>
      r.dispute_status !== 'lost'
        ? `payment ${r.payment_id}: payout ${r.payout_id} deducts ${money(r.deducted!)} for a dispute it has not lost (${r.dispute_status ?? 'no dispute'}).`
        : `payment ${r.payment_id}: payout ${r.payout_id} deducts ${money(r.deducted!)} for its lost dispute but the dispute's rent part is ${money(r.rent_pence ?? 0)}.`,
  ),
  check(
    CHECK_ROW,
    `SELECT po.id, po.amount_pence, COALESCE(sum(l.amount_pence), 0) AS lines,
            string_agg(DISTINCT l.payment_id, ', ') AS payments
       FROM payouts po LEFT JOIN payout_lines l ON l.payout_id = po.id AND l.active
      WHERE po.status <> 'canceled'
      GROUP BY po.id, po.amount_pence HAVING po.amount_pence <> COALESCE(sum(l.amount_pence), 0)`,
    (r) =>
      `payout ${r.id} is ${money(r.amount_pence!)} but its lines add up to ${money(r.lines!)} (payments ${r.payments ?? 'none'}).`,
  ),
  check(
    CHECK_ROW,
    `SELECT r.id, r.total_pence, COALESCE(sum(po.amount_pence) FILTER (WHERE po.status <> 'canceled'), 0) AS payouts
       FROM payout_runs r LEFT JOIN payouts po ON po.payout_run_id = r.id
      WHERE r.status <> 'canceled'
      GROUP BY r.id, r.total_pence
     HAVING r.total_pence <> COALESCE(sum(po.amount_pence) FILTER (WHERE po.status <> 'canceled'), 0)`,
    (r) =>
      `payout run ${r.id} totals ${money(r.total_pence!)} but its payouts add up to ${money(r.payouts!)}.`,
  ),
  check(
    CHECK_ROW,
    `SELECT po.id, po.status, r.id AS run, r.status AS run_status
       FROM payouts po JOIN payout_runs r ON r.id = po.payout_run_id
      WHERE NOT ((r.status = 'created' AND po.status = 'created' AND po.paid_at IS NULL)
              OR (r.status = 'confirmed' AND po.status = 'paid' AND po.paid_at IS NOT NULL)
              OR (r.status = 'canceled' AND po.status = 'canceled'))`,
    (r) => `payout ${r.id} is ${r.status} but its run ${r.run} is ${r.run_status}.`,
  ),
  check(
    CHECK_ROW,
    `SELECT l.payment_id, l.payout_id FROM payout_lines l JOIN payouts po ON po.id = l.payout_id
      WHERE po.status = 'canceled' AND l.active`,
    (r) => `payment ${r.payment_id} is held by canceled payout ${r.payout_id}.`,
  ),
];

const COUNTS = sqlStatement(
  Col.row({ payments: Col.int, payouts: Col.int, runs: Col.int }),
  `SELECT (SELECT count(*)::int FROM payments WHERE status = 'succeeded') AS payments,
          (SELECT count(*)::int FROM payouts) AS payouts, (SELECT count(*)::int FROM payout_runs) AS runs`,
);

/**
 * The auditor's check of payouts against payments, from the database alone: every succeeded payment is in at most
 * one live payout (else it is still payable, or waits for its funds or a dispute) with exactly its rent, and none
 * is paid out before its funds were available; every refund line is that refund's rent part, every dispute line
 * the rent a lost dispute took back;
 * every payout adds up to its lines, every run to its payouts; statuses agree.
 */
export async function reconcilePayouts(db: Db, today: string): Promise<Reconciliation> {
  const mismatches: string[] = [];
  for (const found of CHECKS) mismatches.push(...(await found(db, today)));
  const counts = await COUNTS.first(db);
  return { mismatches, checked: counts ?? { payments: 0, payouts: 0, runs: 0 } };
}
