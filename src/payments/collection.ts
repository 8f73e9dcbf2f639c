import { Type } from 'typebox';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';

const COLLECTION = sqlStatement(
  Col.row({
    days: Type.Array(Type.Object({ day: Col.text, rent_pence: Col.int })),
    failed: Col.int,
    waiting: Col.int,
  }),
  // Rent kept of a payment: its pure amount less what refunds and a lost dispute took back, up to the pure amount
  // (they give the rent back first and the fee last, as the ledger and payouts count them).
  `WITH made AS (
     SELECT (p.created_at AT TIME ZONE 'Europe/London')::date AS day, p.status, p.created_at,
            p.pure_amount_pence - LEAST(p.pure_amount_pence, p.refunded_pence +
              CASE WHEN p.dispute_status = 'lost' THEN COALESCE(p.dispute_amount_pence, 0) ELSE 0 END) AS rent
       FROM payments p
      WHERE p.integrator_id = $1 AND p.created_at >= $2 AND p.created_at < $3
        AND p.status IN ('succeeded', 'failed'))
   SELECT COALESCE((SELECT json_agg(json_build_object('day', d.day::text, 'rent_pence', d.rent_pence) ORDER BY d.day)
                      FROM (SELECT day, sum(rent)::bigint AS rent_pence FROM made WHERE status = 'succeeded'
                             GROUP BY day) d), '[]') AS days,
          (SELECT count(*) FROM made WHERE status = 'failed' AND created_at >= $4)::int AS failed,
          (SELECT count(*) FROM payments WHERE integrator_id = $1 AND status = 'requires_action')::int AS waiting`,
);

export interface Collection {
  /** Rent collected per UK day (YYYY-MM-DD to pence), for the days that have any. */
  rent_by_day: Map<string, number>;
  /** Payments that failed since `failedFrom`. */
  failed: number;
  /** Payments waiting for their tenant (to authenticate, or to finish on an APM's page) now. */
  requires_action: number;
}

/**
 * What an integrator's tenants paid, in one statement: per UK day from `from` to before `before`, the rent of the
 * payments made that day that succeeded (without fees), less what refunds and lost disputes have taken back of
 * them since; how many failed since `failedFrom`; how many wait for their tenant now.
 */
export async function collection(
  db: Queryable,
  integratorId: string,
  range: { from: Date; before: Date; failedFrom: Date },
): Promise<Collection> {
  const row = (await COLLECTION.first(db, [integratorId, range.from, range.before, range.failedFrom]))!;
  return {
    rent_by_day: new Map(row.days.map((d) => [d.day, Number(d.rent_pence)])),
    failed: row.failed,
    requires_action: row.waiting,
  };
}
