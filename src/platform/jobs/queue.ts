import os from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.ts';
import type { Db, Queryable } from '../db/db.ts';
import { newId, randomBase62 } from '../ids.ts';

export interface EnqueueOptions {
  runAt?: Date;
  /** A second enqueue with the same key is a no-op while the first row exists. */
  dedupeKey?: string;
  maxAttempts?: number;
}

export interface JobRow {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

export interface JobContext {
  job: JobRow;
  db: Db;
  clock: Clock;
  log: Logger;
}

/**
 * A handler must be idempotent: a job can run again after a crash between its effect and its
 * completion. Handlers receive ids in the payload and reload the rows they act on.
 */
export type JobHandler = (ctx: JobContext) => Promise<void>;

/** Delay before attempt n+1 (n = attempts so far): 5 s, 30 s, 2 min, 10 min, 30 min, then hourly. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

export function retryDelayMs(attempts: number): number {
  const index = Math.min(Math.max(attempts - 1, 0), RETRY_DELAYS_MS.length - 1);
  return RETRY_DELAYS_MS[index] ?? 3_600_000;
}

/** How long a claimed job stays locked to its worker before another may take it over. */
export const JOB_LEASE_MS = 5 * 60_000;

/** Writes a job in the caller's transaction, so it exists if and only if the change that needs it commits. */
export async function enqueueJob(
  tx: Queryable,
  clock: Clock,
  kind: string,
  payload: Record<string, unknown>,
  options: EnqueueOptions = {},
): Promise<void> {
  const now = clock.now();
  await tx.query(
    `INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, created_at, updated_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $7)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [
      newId('job'),
      kind,
      payload,
      options.dedupeKey ?? null,
      options.runAt ?? now,
      options.maxAttempts ?? 10,
      now,
    ],
  );
}

export interface JobSpec extends EnqueueOptions {
  kind: string;
  payload: Record<string, unknown>;
}

/** Many jobs in one statement, in the caller's transaction (e.g. one per document of a bulk onboarding). */
export async function enqueueJobs(tx: Queryable, clock: Clock, jobs: JobSpec[]): Promise<void> {
  if (jobs.length === 0) return;
  const now = clock.now();
  await tx.query(
    `INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, created_at, updated_at)
     SELECT x.id, x.kind, x.payload, x.dedupe_key, COALESCE(x.run_at, $2), COALESCE(x.max_attempts, 10), $2, $2
       FROM jsonb_to_recordset($1::jsonb)
            AS x(id text, kind text, payload jsonb, dedupe_key text, run_at timestamptz, max_attempts integer)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [
      jobs.map((job) => ({
        id: newId('job'),
        kind: job.kind,
        payload: job.payload,
        dedupe_key: job.dedupeKey ?? null,
        run_at: job.runAt?.toISOString() ?? null,
        max_attempts: job.maxAttempts ?? null,
      })),
      now,
    ],
  );
}

export interface WorkerOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  handlers: Record<string, JobHandler>;
  concurrency?: number;
  pollIntervalMs?: number;
  name?: string;
}

export class Worker {
  readonly name: string;
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #handlers: Record<string, JobHandler>;
  /** The kinds this worker claims, as a PostgreSQL text[] literal (our own constant names, no quoting needed). */
  readonly #kinds: string;
  readonly #concurrency: number;
  readonly #pollIntervalMs: number;
  #running = false;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: WorkerOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#handlers = options.handlers;
    this.#kinds = `{${Object.keys(options.handlers)
      .map((kind) => `"${kind}"`)
      .join(',')}}`;
    this.#concurrency = options.concurrency ?? 8;
    this.#pollIntervalMs = options.pollIntervalMs ?? 500;
    this.name = options.name ?? `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  }

  /**
   * Claims up to `limit` due jobs. SKIP LOCKED lets several workers claim at once without waiting
   * on each other or taking the same row; an expired lease (a crashed worker) makes a job claimable again.
   */
  async claim(limit = this.#concurrency): Promise<JobRow[]> {
    const now = this.#clock.now();
    return this.#db.query<JobRow>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1,
              locked_until = $2, updated_at = $3
        WHERE id IN (
          SELECT id FROM jobs
           WHERE kind = ANY($5::text[])
             AND ((status = 'pending' AND run_at <= $3) OR (status = 'running' AND locked_until < $3))
           ORDER BY run_at
           LIMIT $4
           FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [this.name, new Date(now.getTime() + JOB_LEASE_MS), now, limit, this.#kinds],
    );
  }

  async #execute(job: JobRow): Promise<void> {
    const handler = this.#handlers[job.kind];
    const log = this.#log.child({ job_id: job.id, job_kind: job.kind, attempt: job.attempts });
    try {
      if (!handler) throw new Error(`No handler for job kind "${job.kind}"`);
      await handler({ job, db: this.#db, clock: this.#clock, log });
      await this.#db.query(
        `UPDATE jobs SET status = 'succeeded', locked_by = NULL, locked_until = NULL,
                finished_at = $3, updated_at = $3, last_error = NULL
          WHERE id = $1 AND locked_by = $2`,
        [job.id, this.name, this.#clock.now()],
      );
      log.info('job succeeded');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const now = this.#clock.now();
      const final = job.attempts >= job.max_attempts;
      log.warn({ err: message, final }, final ? 'job failed for the last time' : 'job failed; will retry');
      await this.#db.query(
        `UPDATE jobs SET status = $3, locked_by = NULL, locked_until = NULL, last_error = $4,
                run_at = $5, updated_at = $6, finished_at = $7
          WHERE id = $1 AND locked_by = $2`,
        [
          job.id,
          this.name,
          final ? 'failed' : 'pending',
          message.slice(0, 2000),
          final ? now : new Date(now.getTime() + retryDelayMs(job.attempts)),
          now,
          final ? now : null,
        ],
      );
    }
  }

  /** Claims and runs due jobs until none are left; returns how many ran. Used by tests and the poll loop. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      // Once stop() is called, finish the batch in hand and claim no more.
      if (this.#stopping) return total;
      const jobs = await this.claim();
      if (jobs.length === 0) return total;
      await Promise.all(jobs.map((job) => this.#execute(job)));
      total += jobs.length;
    }
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Wakes the poll loop now, e.g. after enqueuing a job that should run at once. */
  nudge(): void {
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        await this.drain();
      } catch (error) {
        this.#log.error({ err: error }, 'job worker poll failed');
      }
      if (!this.#running) break;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = setTimeout(resolve, this.#pollIntervalMs);
      });
      this.#wake = undefined;
    }
  }

  /** Stops polling and waits for the jobs in hand to finish. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#wake?.();
    await this.#loop;
  }
}

export interface QueueStats {
  pending: number;
  running: number;
  failed: number;
  oldestPendingAgeSeconds: number;
}

export async function queueStats(db: Queryable, clock: Clock): Promise<QueueStats> {
  const [row] = await db.query<{ pending: number; running: number; failed: number; oldest: Date | null }>(
    `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
            count(*) FILTER (WHERE status = 'running')::int AS running,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            min(run_at) FILTER (WHERE status = 'pending' AND run_at <= $1) AS oldest
       FROM jobs WHERE status <> 'succeeded'`,
    [clock.now()],
  );
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : undefined;
  return {
    pending: row?.pending ?? 0,
    running: row?.running ?? 0,
    failed: row?.failed ?? 0,
    oldestPendingAgeSeconds: oldest === undefined ? 0 : Math.max(0, (clock.now().getTime() - oldest) / 1000),
  };
}
