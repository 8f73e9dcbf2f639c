import os from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.ts';
import type { Db, Queryable } from '../db/db.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { randomBase62 } from '../ids.ts';
import { ANYTHING_DUE, CLAIM, type ClaimedJob, RENEW_LEASES } from './claim-sql.ts';
import { InvalidJobPayload } from './define.ts';
import { forgetWorker, recordBeat, staleAfterMs, type WorkerBeat } from './heartbeats.ts';
import { InFlight } from './in-flight.ts';
import { type JobHandler, retryDelayMs, succeedJobStatement } from './queue.ts';

const SUCCEED_JOB = succeedJobStatement('$1', '$2', '$3');

/**
 * How long a claimed job stays locked to its worker before another may take it over, unless the worker renews it:
 * while a handler runs, its worker renews the lease every JOB_HEARTBEAT_MS, so only a dead worker (killed, or cut
 * off from the database) loses its jobs, and they are taken over within about one lease.
 */
export const JOB_LEASE_MS = 30_000;
export const JOB_HEARTBEAT_MS = 10_000;

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
  /**
   * How many jobs of one fair key this worker runs at once (see claim()); default half the concurrency, so one key
   * never holds more than half of a worker's slots.
   */
  perKey?: number;
  /**
   * Claim ahead: hold up to `claimAhead` times `concurrency` jobs (and times `perKey` of one key), while still running
   * at most `concurrency` (and `perKey` of one key) in flight. A job claimed ahead is ready (its lease taken, what it
   * reads read: see JobHandler.marksInFlight) when one in flight settles, so the claim's and the read's round trips
   * overlap other jobs' requests instead of coming between them. 1 (off) by default: tests count claims exactly.
   */
  claimAhead?: number;
  /** JOB_LEASE_MS and JOB_HEARTBEAT_MS unless given (tests shorten them). */
  leaseMs?: number;
  heartbeatMs?: number;
}

/**
 * Resolves once the current turn of the event loop is over: the jobs that ended in it (one shared statement may
 * record many) have all left the worker's hands, so one claim refills all their slots.
 */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
  readonly #leaseMs: number;
  readonly #perKey: number;
  /** What the claims may hold: `concurrency` and `perKey`, each times `claimAhead`. */
  readonly #slots: number;
  readonly #heldPerKey: number;
  readonly #inFlight: InFlight;
  readonly #heartbeatMs: number;
  /** The jobs whose handlers run now, whose leases #renewLeases keeps alive. */
  readonly #held = new Set<string>();
  /** The jobs that settled (their slots are free again) and are recording their outcomes: claim() does not count them. */
  readonly #settling = new Set<string>();
  #renewals: NodeJS.Timeout | undefined;
  #running = false;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Set by nudge(): a wake-up that came while the worker was busy is not lost. */
  #nudged = false;
  #unlisten: Promise<(() => Promise<void>) | undefined> | undefined;
  /** performance.now() when the loop last looked for jobs or renewed its leases: the worker is alive. */
  #beatAt = performance.now();
  /** This process's heartbeat row, from start(); undefined for a worker only drained (tests, runJobs). */
  #row: WorkerBeat | undefined;
  /** The clock's time of the last beat written to the row, and the write in flight. */
  #beatWrittenAt: number | undefined;
  #beatWrite: Promise<void> | undefined;

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
    this.#leaseMs = options.leaseMs ?? JOB_LEASE_MS;
    this.#perKey = options.perKey ?? Math.max(1, Math.ceil(this.#concurrency / 2));
    const ahead = options.claimAhead ?? 1;
    if (!Number.isInteger(ahead) || ahead < 1) throw new Error('claimAhead must be a whole number from 1');
    this.#slots = ahead * this.#concurrency;
    this.#heldPerKey = ahead * this.#perKey;
    this.#inFlight = new InFlight(this.#concurrency, this.#perKey);
    this.#heartbeatMs = options.heartbeatMs ?? JOB_HEARTBEAT_MS;
    this.name = options.name ?? `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  }

  /**
   * Claims up to `limit` due jobs. SKIP LOCKED lets several workers claim at once without waiting
   * on each other or taking the same row; an expired lease (a crashed worker) makes a job claimable again.
   *
   * Fairness: of the jobs that name a fair key, this worker runs at most `perKey` at once for one key, so a key holds
   * at most that share of each worker, and the rest of every worker stays free for other keys whatever one key's
   * backlog. (A cap over all workers together would also cap a lone integrator's throughput at one worker's share.)
   * The keys with pending jobs are found by a loose index scan (one probe per key, however long each key's backlog),
   * then each key's oldest due jobs up to its room; the claim takes the oldest of those and of the unkeyed due jobs.
   */
  async claim(limit = this.#slots): Promise<ClaimedJob[]> {
    const now = this.#clock.now();
    return CLAIM.rows(this.#db, [
      this.name,
      new Date(now.getTime() + this.#leaseMs),
      now,
      limit,
      this.#kinds,
      this.#heldPerKey,
      `{${[...this.#settling].join(',')}}`,
    ]);
  }

  async #execute(job: ClaimedJob, onSettling: () => void): Promise<void> {
    const handler = this.#handlers[job.kind];
    const log = this.#log.child({ job_id: job.id, job_kind: job.kind, attempt: job.attempts });
    try {
      if (!handler) throw new Error(`No handler for job kind "${job.kind}"`);
      let completed = false;
      const complete = async (tx: Queryable) => {
        await tx.query(SUCCEED_JOB, [job.id, this.name, this.#clock.now()]);
        completed = true;
      };
      // In flight from inFlight() (the handler's call, or the worker's before a handler that makes none) until it
      // settles or ends.
      let state: 'waiting' | 'entering' | 'in flight' | 'out' = 'waiting';
      const inFlight = async () => {
        if (state !== 'waiting') return;
        state = 'entering';
        await this.#inFlight.enter(job.fair_key);
        state = 'in flight';
      };
      const leave = () => {
        if (state === 'in flight') this.#inFlight.leave(job.fair_key);
        state = 'out';
      };
      const lease = {
        worker: this.name,
        completed: () => {
          completed = true;
        },
        inFlight,
        settling: () => {
          leave();
          onSettling();
        },
      };
      this.#hold(job.id);
      try {
        if (!handler.marksInFlight) await inFlight();
        await handler({ job, db: this.#db, clock: this.#clock, log, complete, lease });
      } finally {
        leave();
        this.#release(job.id);
      }
      if (!completed) await this.#db.query(SUCCEED_JOB, [job.id, this.name, this.#clock.now()]);
      log.info('job succeeded');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const now = this.#clock.now();
      // A payload its job cannot read will not become readable by waiting.
      const final = job.attempts >= job.max_attempts || error instanceof InvalidJobPayload;
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
          final ? now : new Date(now.getTime() + retryDelayMs(job.attempts, handler?.retryDelaysMs)),
          now,
          final ? now : null,
        ],
      );
    }
  }

  /**
   * While handlers run, one timer renews the leases of all the jobs they hold, in one statement every heartbeat. A
   * job the renewal no longer finds ours (its lease ran out while this process was stalled, and another worker took
   * it) is dropped from the renewals; its handler's outcome is then not recorded by this worker either (every write
   * of it requires locked_by = this worker).
   */
  #hold(jobId: string): void {
    this.#held.add(jobId);
    if (this.#renewals) return;
    this.#renewals = setInterval(() => void this.#renewLeases(), this.#heartbeatMs);
    this.#renewals.unref();
  }

  #release(jobId: string): void {
    this.#held.delete(jobId);
    if (this.#held.size === 0 && this.#renewals) {
      clearInterval(this.#renewals);
      this.#renewals = undefined;
    }
  }

  async #renewLeases(): Promise<void> {
    const ids = [...this.#held];
    if (ids.length === 0) return;
    const now = this.#clock.now();
    try {
      const renewed = await RENEW_LEASES.rows(this.#db, [
        ids,
        this.name,
        new Date(now.getTime() + this.#leaseMs),
        now,
      ]);
      this.#beat();
      const ours = new Set(renewed.map((row) => row.id));
      for (const id of ids) if (!ours.has(id)) this.#held.delete(id);
    } catch (error) {
      this.#log.warn({ err: (error as Error).message }, 'job leases not renewed');
    }
  }

  /**
   * Claims and runs due jobs until none are left; returns how many ran. Used by tests and the poll loop. Up to
   * `concurrency` jobs run at once and a slot is refilled as soon as its job ends, so one slow job (a webhook
   * endpoint that takes its whole timeout) does not hold up the others.
   */
  async drain(): Promise<number> {
    let total = 0;
    // The slots taken: each until its job ends, or settles (lease.settling: only recording its outcome is left).
    const inHand = new Set<Promise<void>>();
    // Every job under way, settling or not: drain returns once all have ended.
    const running = new Set<Promise<void>>();
    for (;;) {
      // Once stop() is called, finish the jobs in hand and claim no more.
      const free = this.#stopping ? 0 : this.#slots - inHand.size;
      // Claims come in batches, once half the slots are free (or all are), so they cost fewer commits.
      const batch = inHand.size === 0 || free * 2 >= this.#slots ? free : 0;
      this.#nudged = false;
      const jobs = batch > 0 ? await this.claim(batch) : [];
      this.#beat();
      for (const job of jobs) {
        let leave: () => void = () => undefined;
        const slot = new Promise<void>((resolve) => {
          leave = resolve;
        }).then(() => void inHand.delete(slot));
        inHand.add(slot);
        const settling = () => {
          this.#settling.add(job.id);
          leave();
        };
        const run: Promise<void> = this.#execute(job, settling)
          .catch((error) => this.#log.error({ err: error, job_id: job.id }, 'job outcome not recorded'))
          .finally(() => {
            this.#settling.delete(job.id);
            running.delete(run);
            leave();
          });
        running.add(run);
      }
      total += jobs.length;
      if (running.size === 0) return total;
      if (inHand.size === 0) {
        // Only jobs recording their outcomes are left: look again once one has.
        await Promise.race(running);
      } else if (this.#stopping || batch === 0 || inHand.size >= this.#slots) {
        await Promise.race(inHand);
      } else {
        // A slot is free but nothing else was due: look again when a slot frees, on a nudge, or after a poll
        // interval.
        const pause = this.#pause();
        await Promise.race([...inHand, pause.wait]);
        pause.end();
      }
      await endOfTurn();
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
    const [host, pid] = [os.hostname(), process.pid];
    this.#row = {
      id: this.name,
      host,
      pid,
      startedAt: this.#clock.now(),
      staleAfterMs: staleAfterMs(this.#pollIntervalMs, this.#heartbeatMs),
    };
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

  /**
   * Whether the loop still turns: it looks for jobs at least every poll interval, and renews its leases every
   * heartbeat while all its slots are busy. Stale after three of the longer of the two (and 30 s at least).
   */
  alive(): { lastBeatSecondsAgo: number; fresh: boolean } {
    const ago = performance.now() - this.#beatAt;
    const limit = staleAfterMs(this.#pollIntervalMs, this.#heartbeatMs);
    return {
      lastBeatSecondsAgo: Math.round(ago / 100) / 10,
      fresh: this.#running && ago < limit,
    };
  }

  /**
   * The loop turned. A started worker also writes its heartbeat row (which every node's operator console reads), at
   * most once per heartbeat interval by its clock and never two writes at once, so the loop's hot path stays a
   * timestamp. The write is not waited for: a slow database delays the row, not the jobs.
   */
  #beat(): void {
    this.#beatAt = performance.now();
    if (!this.#row || !this.#running || this.#beatWrite) return;
    const now = this.#clock.now();
    const written = this.#beatWrittenAt;
    if (written !== undefined && now.getTime() - written < this.#heartbeatMs && now.getTime() >= written)
      return;
    this.#beatWrittenAt = now.getTime();
    this.#beatWrite = recordBeat(this.#db, this.#row, now)
      // A failed write is tried again at the next interval, not at every turn of the loop.
      .catch((error) => this.#log.warn({ err: (error as Error).message }, 'worker heartbeat not recorded'))
      .finally(() => {
        this.#beatWrite = undefined;
      });
  }

  /** Resolves once the heartbeat row has been written (or its write failed) after the loop's latest turn. */
  async beatRecorded(): Promise<void> {
    await this.#beatWrite;
  }

  /** Wakes the poll loop now, e.g. after enqueuing a job that should run at once. */
  nudge(): void {
    this.#nudged = true;
    this.#wake?.();
  }

  /**
   * Whether any job is due or any lease has run out: one cheap statement for an idle worker's poll, where the claim
   * (planned afresh on the embedded database each time) costs many times more.
   */
  async #anythingDue(): Promise<boolean> {
    const now = this.#clock.now();
    const row = await ANYTHING_DUE.first(this.#db, [now]);
    this.#beat();
    return row?.due === true;
  }

  async #run(): Promise<void> {
    let ranLast = 1;
    while (this.#running) {
      try {
        // After a poll that found nothing, a timer's wake-up (not a nudge) first asks whether anything is due.
        if (ranLast > 0 || this.#nudged || (await this.#anythingDue())) ranLast = await this.drain();
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
    await this.#beatWrite;
    if (this.#row) {
      await forgetWorker(this.#db, this.#row.id).catch((error) =>
        this.#log.warn({ err: (error as Error).message }, 'worker heartbeat not removed'),
      );
    }
  }
}
