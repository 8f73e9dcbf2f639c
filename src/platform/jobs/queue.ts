import os from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.ts';
import type { Db, Queryable } from '../db/db.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
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
  lease?: { worker: string; completed(): void };
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

const SUCCEED_JOB = succeedJobStatement('$1', '$2', '$3');

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

/**
 * The NOTIFY channel that wakes idle workers (Worker's wakeChannel). A notification sent in a transaction reaches
 * them only when it commits, so a worker woken by it finds the job; without it a job waits for the next poll.
 */
export const JOBS_CHANNEL = 'rentpay_jobs';

/** How long a claimed job stays locked to its worker before another may take it over. */
export const JOB_LEASE_MS = 5 * 60_000;

/**
 * Writes a job in the caller's transaction, so it exists if and only if the change that needs it commits. Returns
 * its id (with a dedupe key already taken, an id no row has).
 */
export async function enqueueJob(
  tx: Queryable,
  clock: Clock,
  kind: string,
  payload: Record<string, unknown>,
  options: EnqueueOptions = {},
): Promise<string> {
  const now = clock.now();
  const id = newId('job');
  await tx.query(
    `INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, created_at, updated_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $7)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [id, kind, payload, options.dedupeKey ?? null, options.runAt ?? now, options.maxAttempts ?? 10, now],
  );
  return id;
}

/**
 * For a caller that writes its own rows and their jobs in one statement: the text of a data-modifying CTE body that
 * inserts one job, due now, per row of `from`. Each argument is an SQL expression over that row (or a parameter);
 * the jobs table stays this module's. The caller sends JOBS_CHANNEL once it has written any.
 */
export function insertJobsSql(columns: {
  from: string;
  id: string;
  kind: string;
  payload: string;
  now: string;
}): string {
  const { from, id, kind, payload, now } = columns;
  return `INSERT INTO jobs (id, kind, payload, run_at, created_at, updated_at)
       SELECT ${id}, ${kind}, ${payload}, ${now}, ${now}, ${now} FROM ${from}
       RETURNING id`;
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
  const ids = jobs.map(() => newId('job'));
  await tx.query(
    `INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, created_at, updated_at)
     SELECT x.id, x.kind, x.payload, x.dedupe_key, COALESCE(x.run_at, $2), COALESCE(x.max_attempts, 10), $2, $2
       FROM jsonb_to_recordset($1::jsonb)
            AS x(id text, kind text, payload jsonb, dedupe_key text, run_at timestamptz, max_attempts integer)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [
      jobs.map((job, i) => ({
        id: ids[i],
        kind: job.kind,
        payload: job.payload,
        dedupe_key: job.dedupeKey ?? null,
        run_at: job.runAt?.toISOString() ?? null,
        max_attempts: job.maxAttempts ?? null,
      })),
      now,
    ],
  );
  return ids;
}

export interface WorkerOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  handlers: Record<string, JobHandler>;
  concurrency?: number;
  pollIntervalMs?: number;
  name?: string;
  /** LISTEN on this channel (JOBS_CHANNEL) and look for jobs at once on each notification. */
  wakeChannel?: string;
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
  readonly #wakeChannel: string | undefined;
  #running = false;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Set by nudge(): a wake-up that came while the worker was busy is not lost. */
  #nudged = false;
  #unlisten: Promise<(() => Promise<void>) | undefined> | undefined;

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
    this.#wakeChannel = options.wakeChannel;
    this.name = options.name ?? `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  }

  /**
   * Claims up to `limit` due jobs. SKIP LOCKED lets several workers claim at once without waiting
   * on each other or taking the same row; an expired lease (a crashed worker) makes a job claimable again.
   */
  async claim(limit = this.#concurrency): Promise<JobRow[]> {
    const now = this.#clock.now();
    return this.#db.query<JobRow>(
      // Two index scans that stop after $4 rows each (expired leases first, then due jobs oldest first): one scan
      // with an OR would read and sort every due job, which costs as much as the backlog is long.
      `WITH expired AS (
         SELECT id FROM jobs
          WHERE status = 'running' AND locked_until < $3 AND kind = ANY($5::text[])
          ORDER BY locked_until
          LIMIT $4
          FOR UPDATE SKIP LOCKED),
       due AS (
         SELECT id FROM jobs
          WHERE status = 'pending' AND run_at <= $3 AND kind = ANY($5::text[])
          ORDER BY run_at
          LIMIT $4
          FOR UPDATE SKIP LOCKED),
       picked AS (SELECT id FROM expired UNION ALL SELECT id FROM due LIMIT $4)
       UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1,
              locked_until = $2, updated_at = $3
        WHERE id IN (SELECT id FROM picked)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [this.name, new Date(now.getTime() + JOB_LEASE_MS), now, limit, this.#kinds],
    );
  }

  async #execute(job: JobRow): Promise<void> {
    const handler = this.#handlers[job.kind];
    const log = this.#log.child({ job_id: job.id, job_kind: job.kind, attempt: job.attempts });
    try {
      if (!handler) throw new Error(`No handler for job kind "${job.kind}"`);
      let completed = false;
      const complete = async (tx: Queryable) => {
        await tx.query(SUCCEED_JOB, [job.id, this.name, this.#clock.now()]);
        completed = true;
      };
      const lease = {
        worker: this.name,
        completed: () => {
          completed = true;
        },
      };
      await handler({ job, db: this.#db, clock: this.#clock, log, complete, lease });
      if (!completed) await this.#db.query(SUCCEED_JOB, [job.id, this.name, this.#clock.now()]);
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

  /**
   * Claims and runs due jobs until none are left; returns how many ran. Used by tests and the poll loop. Up to
   * `concurrency` jobs run at once and a slot is refilled as soon as its job ends, so one slow job (a webhook
   * endpoint that takes its whole timeout) does not hold up the others.
   */
  async drain(): Promise<number> {
    let total = 0;
    const inHand = new Set<Promise<void>>();
    for (;;) {
      // Once stop() is called, finish the jobs in hand and claim no more.
      const free = this.#stopping ? 0 : this.#concurrency - inHand.size;
      // Claims come in batches, once half the slots are free (or all are), so they cost fewer commits.
      const batch = inHand.size === 0 || free * 2 >= this.#concurrency ? free : 0;
      this.#nudged = false;
      const jobs = batch > 0 ? await this.claim(batch) : [];
      for (const job of jobs) {
        const run: Promise<void> = this.#execute(job)
          .catch((error) => this.#log.error({ err: error, job_id: job.id }, 'job outcome not recorded'))
          .finally(() => inHand.delete(run));
        inHand.add(run);
      }
      total += jobs.length;
      if (inHand.size === 0) return total;
      if (this.#stopping || batch === 0 || inHand.size >= this.#concurrency) {
        await Promise.race(inHand);
        continue;
      }
      // A slot is free but nothing else was due: look again when a job ends, on a nudge, or after a poll interval.
      const pause = this.#pause();
      await Promise.race([...inHand, pause.wait]);
      pause.end();
    }
  }

  /** Waits the poll interval, or less on nudge() or stop(); end() lets go of the timer. */
  #pause(): { wait: Promise<void>; end: () => void } {
    if (this.#nudged || this.#stopping) return { wait: Promise.resolve(), end: () => undefined };
    let end: () => void = () => undefined;
    const wait = new Promise<void>((resolve) => {
      const timer = setTimeout(() => end(), this.#pollIntervalMs);
      end = () => {
        clearTimeout(timer);
        if (this.#wake === end) this.#wake = undefined;
        resolve();
      };
      this.#timer = timer;
      this.#wake = end;
    });
    return { wait, end };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    if (this.#wakeChannel) {
      this.#unlisten = this.#db
        .listen(this.#wakeChannel, () => this.nudge())
        .catch((error) => {
          this.#log.warn({ err: error }, 'job worker cannot listen for wake-ups; polling only');
          return undefined;
        });
    }
    this.#loop = this.#run();
  }

  /** Resolves once the worker listens on its wake channel (at once without one, or when listening failed). */
  async listening(): Promise<void> {
    await this.#unlisten;
  }

  /** Wakes the poll loop now, e.g. after enqueuing a job that should run at once. */
  nudge(): void {
    this.#nudged = true;
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        await this.drain();
      } catch (error) {
        if (isDatabaseUnavailable(error))
          this.#log.warn({ err: (error as Error).message }, 'job worker: database unavailable');
        else this.#log.error({ err: error }, 'job worker poll failed');
      }
      if (!this.#running) break;
      await this.#pause().wait;
    }
  }

  /** Stops polling and waits for the jobs in hand to finish. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#wake?.();
    await this.#loop;
    await (await this.#unlisten)?.();
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
