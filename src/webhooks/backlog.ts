import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';

/** One integrator's undelivered webhooks: pending (waiting for an attempt) since when, and failed. */
export interface IntegratorBacklog {
  pending: number;
  oldestPendingSince: Date | null;
  failed: number;
}

// The deliveries not delivered only (the integrator and status index), grouped: never a query per integrator.
const BACKLOG = sqlStatement(
  Col.row({
    integrator_id: Col.text,
    pending: Col.int,
    oldest_pending_since: Col.nullable(Col.date),
    failed: Col.int,
  }),
  `SELECT integrator_id,
          count(*) FILTER (WHERE status = 'pending')::int AS pending,
          min(pending_since) FILTER (WHERE status = 'pending') AS oldest_pending_since,
          count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM webhook_deliveries
    WHERE status IN ('pending', 'failed')
    GROUP BY integrator_id`,
);

/** Every integrator's webhook backlog, by integrator id; an integrator with none is absent. */
export async function webhookBacklogByIntegrator(db: Queryable): Promise<Map<string, IntegratorBacklog>> {
  const found = await BACKLOG.rows(db);
  return new Map(
    found.map((row) => [
      row.integrator_id,
      { pending: row.pending, oldestPendingSince: row.oldest_pending_since, failed: row.failed },
    ]),
  );
}
