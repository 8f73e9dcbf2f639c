import type { Clock } from '../clock/clock.ts';
import { Col, sqlStatement } from '../db/checked-sql.ts';
import type { Db } from '../db/db.ts';
import { type WorkerHeartbeat, workerHeartbeats } from './heartbeats.ts';

/** One kind of job in the queue: what waits, what runs, what failed, and how long the oldest due job has waited. */
export interface KindDepth {
  kind: string;
  /** Pending, due now or later (a retry waiting, a job scheduled ahead). */
  pending: number;
  /** Of those, due now: a worker would claim them at its next look. */
  due: number;
  running: number;
  /** Failed for good, kept until the retention deletes them. */
  failed: number;
  /** run_at of the oldest pending job that is due, or null when none is. */
  oldestDueAt: Date | null;
}

// Only the rows not succeeded: the partial indexes of pending, running and finished jobs find them.
const QUEUE_BY_KIND = sqlStatement(
  Col.row({
    kind: Col.text,
    pending: Col.int,
    due: Col.int,
    running: Col.int,
    failed: Col.int,
    oldest_due_at: Col.nullable(Col.date),
  }),
  `SELECT kind,
          count(*) FILTER (WHERE status = 'pending')::int AS pending,
          count(*) FILTER (WHERE status = 'pending' AND run_at <= $1)::int AS due,
          count(*) FILTER (WHERE status = 'running')::int AS running,
          count(*) FILTER (WHERE status = 'failed')::int AS failed,
          min(run_at) FILTER (WHERE status = 'pending' AND run_at <= $1) AS oldest_due_at
     FROM jobs
    WHERE status IN ('pending', 'running', 'failed')
    GROUP BY kind
    ORDER BY kind`,
);

export interface SystemReport {
  database: { reachable: boolean; roundTripMs: number | null };
  queue: KindDepth[];
  workers: WorkerHeartbeat[];
}

/**
 * The state of the machinery every node shares, read from the database so any node answers the same: the job queue
 * by kind, the database's round trip, and every worker process's heartbeat.
 */
export class SystemHealth {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async report(): Promise<SystemReport> {
    const database = await this.#ping();
    if (!database.reachable) return { database, queue: [], workers: [] };
    const now = this.clock.now();
    const queue = (await QUEUE_BY_KIND.rows(this.db, [now])).map((row) => ({
      kind: row.kind,
      pending: row.pending,
      due: row.due,
      running: row.running,
      failed: row.failed,
      oldestDueAt: row.oldest_due_at,
    }));
    return { database, queue, workers: await workerHeartbeats(this.db, this.clock) };
  }

  /** A trivial statement's round trip, in milliseconds of this process's monotonic time. */
  async #ping(): Promise<SystemReport['database']> {
    const start = performance.now();
    try {
      await this.db.query('SELECT 1');
      return { reachable: true, roundTripMs: Math.round((performance.now() - start) * 10) / 10 };
    } catch {
      return { reachable: false, roundTripMs: null };
    }
  }
}
