import type { InferResult } from 'kysely';
import { StatementBatcher } from '../../platform/db/batcher.ts';
import { Col, sqlStatement } from '../../platform/db/checked-sql.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { qb, rows } from '../../platform/db/query-builder.ts';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.ts';
import { succeedJobsSql } from '../../platform/jobs/queue.ts';

/**
 * Deliveries with their event and where and how to send it. A read, not a lock: the delivery's job_id names the one
 * job that may attempt it (each retry or redelivery writes a new job and names it), and the job queue's claim gives
 * that job to one worker only.
 */
function deliveriesToAttempt() {
  return qb
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('integrators as i', 'i.id', 'd.integrator_id')
    .leftJoin('webhook_endpoints as w', 'w.integrator_id', 'i.id')
    .select([
      'd.event_id',
      'd.integrator_id',
      'd.status',
      'd.job_id',
      'd.round_attempts',
      'd.attempts',
      'e.type',
      'e.data',
      'e.created_at as event_created_at',
      'i.webhook_url',
      'i.webhook_secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.disabled_url',
      'w.disabled_reason',
    ])
    .$narrowType<{ data: Record<string, unknown> }>();
}

export type DeliveryToAttempt = InferResult<ReturnType<typeof deliveriesToAttempt>>[number];

/** An attempt that ends its delivery (delivered, or failed for good: the outcome is its status), made by job_id of worker. */
export interface FinalAttempt {
  event_id: string;
  job_id: string;
  worker: string;
  outcome: 'delivered' | 'failed';
  url: string;
  sent_at: Date;
  latency_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  now: Date;
}

/**
 * Final attempts in one statement: each delivery that its job still holds ends, its row in the delivery log is
 * written with the number its attempt got, and its job succeeds while its worker still holds it. Returns the jobs
 * whose delivery was recorded (a job whose delivery moved on to another job records nothing).
 */
const RECORD_FINAL_ATTEMPTS = sqlStatement(
  Col.row({ job_id: Col.text }),
  `WITH x AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS x(event_id text, job_id text, worker text, outcome text, url text, sent_at timestamptz,
              latency_ms integer, status_code integer, error text, response_body text, now timestamptz)),
   d AS (
     UPDATE webhook_deliveries w
        SET status = x.outcome, round_attempts = w.round_attempts + 1, attempts = w.attempts + 1,
            next_attempt_at = NULL, job_id = NULL, last_attempt_at = x.sent_at, last_status_code = x.status_code,
            last_error = x.error, pending_since = NULL,
            delivered_at = CASE WHEN x.outcome = 'delivered' THEN x.now ELSE w.delivered_at END,
            failed_at = CASE WHEN x.outcome = 'failed' THEN x.now END, retry_requested_at = NULL, updated_at = x.now
       FROM x
      WHERE w.event_id = x.event_id AND w.job_id = x.job_id
      RETURNING w.event_id, w.attempts, x.job_id, x.worker, x.now),
   a AS (
     INSERT INTO webhook_attempts (event_id, number, url, attempted_at, latency_ms, status_code, outcome, error,
                                   response_body)
     SELECT d.event_id, d.attempts, x.url, x.sent_at, x.latency_ms, x.status_code, x.outcome, x.error,
            x.response_body
       FROM d JOIN x ON x.job_id = d.job_id),
   j AS (
     ${succeedJobsSql({ from: 'd', id: 'd.job_id', worker: 'd.worker', now: 'd.now' })})
   SELECT job_id FROM d`,
);

const splits = (error: unknown) => !isDatabaseUnavailable(error);

/**
 * The reads and the final writes of the delivery jobs a worker runs at once share statements: the jobs a claim
 * started load their deliveries in one SELECT, and the attempts that end in one turn of the event loop are recorded
 * in one statement and one commit; one such statement runs at a time, and the attempts that end meanwhile go in the
 * next (a job's place in flight is free before its outcome is recorded, so the wait holds up no delivery). A batch
 * that fails is run again job by job, so one job's failure is never another's.
 */
export class DeliveryBatches {
  readonly #loads: StatementBatcher<string, DeliveryToAttempt | undefined>;
  readonly #records: StatementBatcher<FinalAttempt, boolean>;

  constructor(db: Queryable) {
    this.#loads = new StatementBatcher(
      async (eventIds) => {
        const found = await rows(db, deliveriesToAttempt().where('d.event_id', 'in', eventIds));
        const byId = new Map(found.map((row) => [row.event_id, row]));
        return eventIds.map((id) => byId.get(id));
      },
      { splits },
    );
    this.#records = new StatementBatcher(
      async (attempts) => {
        const recorded = await RECORD_FINAL_ATTEMPTS.rows(db, [attempts]);
        const jobs = new Set(recorded.map((row) => row.job_id));
        return attempts.map((attempt) => jobs.has(attempt.job_id));
      },
      { splits, maxInFlight: 1, maxBatch: 256 },
    );
  }

  /** The delivery of the event, with what sending it needs; undefined when there is none. */
  load(eventId: string): Promise<DeliveryToAttempt | undefined> {
    return this.#loads.run(eventId);
  }

  /** Records a final attempt and succeeds its job in one commit; false when the delivery moved on to another job. */
  recordFinal(attempt: FinalAttempt): Promise<boolean> {
    return this.#records.run(attempt);
  }
}

const byDatabase = new WeakMap<Queryable, DeliveryBatches>();

/** The batches of the delivery jobs on one database (one per database, so every job of a process shares them). */
export function deliveryBatches(db: Queryable): DeliveryBatches {
  let batches = byDatabase.get(db);
  if (!batches) {
    batches = new DeliveryBatches(db);
    byDatabase.set(db, batches);
  }
  return batches;
}
