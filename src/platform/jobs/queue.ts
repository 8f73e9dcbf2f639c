import type { Logger } from 'pino';
import { type Static, Type } from 'typebox';
import type { Clock } from '../clock/clock.ts';
import { Col, sqlStatement } from '../db/checked-sql.ts';
import type { Db, Queryable } from '../db/db.ts';
import { newId } from '../ids.ts';

export interface EnqueueOptions {
  runAt?: Date;
  /** A second enqueue with the same key is a no-op while the first row exists. */
  dedupeKey?: string;
  maxAttempts?: number;
  /**
   * Whose work this is (e.g. an integrator's id): a worker runs only a share of its slots for one key at a time, so
   * one key's slow jobs cannot hold up everyone else's. Jobs without a key are not limited.
   */
  fairKey?: string;
}

export const JOB_ROW = Col.row({
  id: Col.text,
  kind: Col.text,
  payload: Type.Record(Type.String(), Type.Unknown()),
  attempts: Col.int,
  max_attempts: Col.int,
});
export type JobRow = Static<typeof JOB_ROW>;

export interface JobContext {
  job: JobRow;
  db: Db;
  clock: Clock;
  log: Logger;
  /**
   * Marks the job succeeded in the handler's own transaction, so its effect and its completion commit together
   * (one commit, and no second run after a crash between them); the worker then records nothing more. Optional.
   * Absent when a handler is called outside a worker.
   */
  complete?(tx: Queryable): Promise<void>;
  /**
   * The same within one statement of the handler's own (a CTE with succeedJobStatement, one round trip): the
   * worker's name for its `locked_by` parameter, and completed() to call once that statement marked the job.
   */
  lease?: {
    worker: string;
    completed(): void;
    /**
     * Resolves once the job may start its work outside the database (a request to another server), as one of at
     * most perKey of its fair key in flight in this worker, for a handler that says it calls this (marksInFlight):
     * what it does before (reading its rows) needs no place. Without marksInFlight the whole handler is in flight.
     */
    inFlight(): Promise<void>;
    /**
     * The job's work outside the database is over (its request has been answered): what is left is recording the
     * outcome, so its place among its fair key's perKey and the worker's slots goes to the next job now.
     */
    settling(): void;
  };
}

/**
 * The UPDATE that marks a job succeeded while its worker still holds it, for a handler's own CTE: the arguments
 * are the statement's placeholders for the job id, the worker's name and the time.
 */
export function succeedJobStatement(id: string, worker: string, now: string): string {
  return `UPDATE jobs SET status = 'succeeded', locked_by = NULL, locked_until = NULL, finished_at = ${now},
         updated_at = ${now}, last_error = NULL
   WHERE id = ${id} AND locked_by = ${worker}`;
}

/**
 * The same for many jobs in one data-modifying CTE body: marks succeeded the jobs of `from` (a CTE or table of the
 * caller's statement) whose `id` column names them, each while the worker its `worker` column names still holds it;
 * the arguments are SQL expressions over that row.
 */
export function succeedJobsSql(columns: { from: string; id: string; worker: string; now: string }): string {
  const { from, id, worker, now } = columns;
  return `UPDATE jobs SET status = 'succeeded', locked_by = NULL, locked_until = NULL, finished_at = ${now},
         updated_at = ${now}, last_error = NULL
    FROM ${from}
   WHERE jobs.id = ${id} AND jobs.locked_by = ${worker}`;
}

/**
 * A handler must be idempotent: a job can run again after a crash between its effect and its
 * completion. Handlers receive ids in the payload and reload the rows they act on.
 */
export type JobHandler = ((ctx: JobContext) => Promise<void>) & {
  /** The job's own retry delays (see jobHandler in define.ts); STANDARD_RETRY_DELAYS_MS when absent. */
  retryDelaysMs?: readonly number[];
  /** The handler calls ctx.lease.inFlight() before its work outside the database (see there). */
  marksInFlight?: boolean;
};

/** Delay before attempt n+1 (n = attempts so far): 5 s, 30 s, 2 min, 10 min, 30 min, then hourly. */
export const STANDARD_RETRY_DELAYS_MS: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000,
];

/** The delay after `attempts` failed runs: delays[attempts - 1], the last one past the end. */
export function retryDelayMs(attempts: number, delays: readonly number[] = STANDARD_RETRY_DELAYS_MS): number {
  const index = Math.min(Math.max(attempts - 1, 0), delays.length - 1);
  return delays[index] ?? 3_600_000;
}

/**
 * The NOTIFY channel that wakes idle workers (Worker's wakeChannel). A notification sent in a transaction reaches
 * them only when it commits, so a worker woken by it finds the job; without it a job waits for the next poll.
 */
export const JOBS_CHANNEL = 'rentpay_jobs';

/**
 * Writes a job in the caller's transaction, so it exists if and only if the change that needs it commits. Returns
 * its id, or undefined when a job with the same dedupe key exists already (nothing is written).
 */
export async function enqueueJob(
  tx: Queryable,
  clock: Clock,
  kind: string,
  payload: Record<string, unknown>,
  options: EnqueueOptions = {},
): Promise<string | undefined> {
  const now = clock.now();
  const id = newId('job');
  const inserted = await tx.query(
    `INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, fair_key, created_at, updated_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $8)
     ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
    [
      id,
      kind,
      payload,
      options.dedupeKey ?? null,
      options.runAt ?? now,
      options.maxAttempts ?? 10,
      options.fairKey ?? null,
      now,
    ],
  );
  if (inserted.length === 0) return undefined;
  await wakeWorkersIfDue(tx, now, [options]);
  return id;
}

/**
 * Wakes the idle workers once `tx` commits (at once outside a transaction), instead of at their next poll: for a
 * caller whose own statement made jobs due now. One notification per transaction, however many jobs.
 */
export async function wakeWorkers(tx: Queryable): Promise<void> {
  await tx.notifyOnCommit(JOBS_CHANNEL, '');
}

/** Wakes the idle workers once `tx` commits if any of these jobs is due now. */
export async function wakeWorkersIfDue(
  tx: Queryable,
  now: Date,
  jobs: readonly { runAt?: Date | undefined }[],
): Promise<void> {
  if (jobs.some((job) => !job.runAt || job.runAt <= now)) await wakeWorkers(tx);
}

/**
 * For a caller that writes its own rows and their jobs in one statement: the text of a data-modifying CTE body that
 * inserts one job, due now, per row of `from`. Each argument is an SQL expression over that row (or a parameter);
 * the jobs table stays this module's. The caller calls wakeWorkers once it has written any.
 */
export function insertJobsSql(columns: {
  from: string;
  id: string;
  kind: string;
  payload: string;
  now: string;
  fairKey?: string;
}): string {
  const { from, id, kind, payload, now, fairKey = 'NULL' } = columns;
  return `INSERT INTO jobs (id, kind, payload, fair_key, run_at, created_at, updated_at)
       SELECT ${id}, ${kind}, ${payload}, ${fairKey}, ${now}, ${now}, ${now} FROM ${from}
       RETURNING id`;
}

/** Makes a pending job due at `at` (a waiting retry brought forward); false when it is not pending. */
export async function bringJobForward(tx: Queryable, jobId: string, at: Date): Promise<boolean> {
  const rows = await tx.query(
    "UPDATE jobs SET run_at = $2, updated_at = $2 WHERE id = $1 AND status = 'pending' RETURNING id",
    [jobId, at],
  );
  if (rows.length > 0) await wakeWorkers(tx);
  return rows.length > 0;
}

/**
 * The same for a caller's own statement: the text of a data-modifying CTE body that makes the pending jobs among
 * `from`'s `jobId` column due at `at` (SQL expressions), returning their ids.
 */
export function bringJobsForwardSql(columns: { from: string; jobId: string; at: string }): string {
  const { from, jobId, at } = columns;
  return `UPDATE jobs j SET run_at = ${at}, updated_at = ${at}
             FROM ${from}
            WHERE j.id = ${jobId} AND j.status = 'pending'
            RETURNING j.id`;
}

export interface JobSpec extends EnqueueOptions {
  kind: string;
  payload: Record<string, unknown>;
}

/**
 * Many jobs in one statement, in the caller's transaction (e.g. one per document of a bulk onboarding). Returns
 * their ids in the order given.
 */
export async function enqueueJobs(tx: Queryable, clock: Clock, jobs: JobSpec[]): Promise<string[]> {
  if (jobs.length === 0) return [];
  const now = clock.now();
  const records = jobRecords(jobs);
  await tx.query(insertJobRecordsSql('$1', '$2'), [records, now]);
  await wakeWorkersIfDue(tx, now, jobs);
  return records.map((record) => record.id);
}

/** Jobs as the rows of a jsonb parameter for insertJobRecordsSql, each with its new id. */
export function jobRecords(jobs: readonly JobSpec[]) {
  return jobs.map((job) => ({
    id: newId('job'),
    kind: job.kind,
    payload: job.payload,
    dedupe_key: job.dedupeKey ?? null,
    run_at: job.runAt?.toISOString() ?? null,
    max_attempts: job.maxAttempts ?? null,
    fair_key: job.fairKey ?? null,
  }));
}

/**
 * For a caller that writes its jobs within a statement of its own: the INSERT of the jobRecords in the jsonb
 * parameter `records` (a data-modifying CTE body, or a whole statement), `now` being the time's placeholder. A job
 * whose dedupe key is taken is not written. The caller wakes the workers (wakeWorkersIfDue) if any is due now.
 */
export function insertJobRecordsSql(records: string, now: string): string {
  return `INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, fair_key, created_at, updated_at)
     SELECT x.id, x.kind, x.payload, x.dedupe_key, COALESCE(x.run_at, ${now}), COALESCE(x.max_attempts, 10),
            x.fair_key, ${now}, ${now}
       FROM jsonb_to_recordset(${records}::jsonb)
            AS x(id text, kind text, payload jsonb, dedupe_key text, run_at timestamptz, max_attempts integer,
                 fair_key text)
     ON CONFLICT (dedupe_key) DO NOTHING`;
}

export interface QueueStats {
  pending: number;
  running: number;
  failed: number;
  oldestPendingAgeSeconds: number;
}

const QUEUE_STATS = sqlStatement(
  Col.row({ pending: Col.int, running: Col.int, failed: Col.int, oldest: Col.nullable(Col.date) }),
  `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
          count(*) FILTER (WHERE status = 'running')::int AS running,
          count(*) FILTER (WHERE status = 'failed')::int AS failed,
          min(run_at) FILTER (WHERE status = 'pending' AND run_at <= $1) AS oldest
     FROM jobs WHERE status <> 'succeeded'`,
);

export async function queueStats(db: Queryable, clock: Clock): Promise<QueueStats> {
  const row = await QUEUE_STATS.first(db, [clock.now()]);
  const oldest = row?.oldest?.getTime();
  return {
    pending: row?.pending ?? 0,
    running: row?.running ?? 0,
    failed: row?.failed ?? 0,
    oldestPendingAgeSeconds: oldest === undefined ? 0 : Math.max(0, (clock.now().getTime() - oldest) / 1000),
  };
}
