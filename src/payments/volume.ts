import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';

/** One integrator's payments over a period: what succeeded (count and amount charged) and what failed. */
export interface PaymentVolume {
  succeeded: number;
  /** What tenants were charged for them (rent and fees), before refunds. */
  succeededPence: number;
  failed: number;
}

// One pass over the period's payments (the created_at index), grouped: never a query per integrator.
const VOLUME = sqlStatement(
  Col.row({ integrator_id: Col.text, succeeded: Col.int, succeeded_pence: Col.int, failed: Col.int }),
  `SELECT integrator_id,
          count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
          COALESCE(sum(amount_pence) FILTER (WHERE status = 'succeeded'), 0)::bigint AS succeeded_pence,
          count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM payments
    WHERE created_at >= $1 AND status IN ('succeeded', 'failed')
    GROUP BY integrator_id`,
);

/** Every integrator's payment volume since `since`, by integrator id; an integrator without payments is absent. */
export async function paymentVolumeByIntegrator(
  db: Queryable,
  since: Date,
): Promise<Map<string, PaymentVolume>> {
  const found = await VOLUME.rows(db, [since]);
  return new Map(
    found.map((row) => [
      row.integrator_id,
      { succeeded: row.succeeded, succeededPence: row.succeeded_pence, failed: row.failed },
    ]),
  );
}
