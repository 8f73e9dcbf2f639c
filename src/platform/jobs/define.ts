import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Clock } from '../clock/clock.ts';
import type { Queryable } from '../db/db.ts';
import {
  type EnqueueOptions,
  enqueueJob,
  enqueueJobs,
  type JobContext,
  type JobHandler,
  type JobSpec,
  STANDARD_RETRY_DELAYS_MS,
} from './queue.ts';

/** How often a job is tried and how long it waits between tries. */
export interface RetryPolicy {
  /** Runs in all, the first included. */
  maxAttempts: number;
  /** Delay before attempt n+1 (index n-1); past the end, the last delay. */
  delaysMs: readonly number[];
}

/** 10 runs: 5 s, 30 s, 2 min, 10 min, 30 min, then hourly. */
export const STANDARD_RETRY: RetryPolicy = {
  maxAttempts: 10,
  delaysMs: STANDARD_RETRY_DELAYS_MS,
};

/** One kind of job: what it carries, how it retries, whose it is, and what it does, in one place. */
export interface JobDefinition<Schema extends TSchema = TSchema, Deps = never> {
  /** The `jobs.kind` value: never renamed once jobs of it may be waiting. */
  kind: string;
  /** What it does, for the job table in the operations docs. */
  summary: string;
  payload: Schema;
  retry: RetryPolicy;
  /** While a job with this key exists, enqueueing another with it writes nothing (undefined: no key). */
  dedupeKey?(payload: Static<Schema>): string | undefined;
  /**
   * A job every worker process enqueues once per period (see periodic.ts): all of them together make one per period.
   */
  every?: { ms: number; payload(now: Date): Static<Schema> };
  /**
   * The job calls ctx.lease.inFlight() before its work outside the database, so what it does before (reading its
   * rows) takes none of its key's places in flight, and a worker claiming ahead has it ready.
   */
  marksInFlight?: boolean;
  /** Whose work it is: one key's jobs take at most a share of a worker's slots. */
  fairKey?(payload: Static<Schema>): string | undefined;
  /**
   * What it does, on the services it is given. Idempotent: a job can run again after a crash between its effect
   * and its completion, so it reloads the rows its payload names and skips what is already done.
   */
  run(deps: Deps): (payload: Static<Schema>, ctx: JobContext) => Promise<void>;
}

/** A declared job: its definition, and its payload schema's checker, compiled once (on first use) per process. */
export type DefinedJob<Schema extends TSchema = TSchema, Deps = never> = JobDefinition<Schema, Deps> & {
  payloadChecker(): PayloadChecker<Schema>;
};

function compilePayload<Schema extends TSchema>(payload: Schema) {
  return Compile(payload);
}

type PayloadChecker<Schema extends TSchema> = ReturnType<typeof compilePayload<Schema>>;

export function defineJob<Schema extends TSchema, Deps = never>(
  definition: JobDefinition<Schema, Deps>,
): DefinedJob<Schema, Deps> {
  let checker: PayloadChecker<Schema> | undefined;
  return {
    ...definition,
    payloadChecker: () => {
      checker ??= compilePayload(definition.payload);
      return checker;
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a job of any payload and services, where only its declaration is read.
export type AnyJobDefinition = JobDefinition<TSchema, any>;

/** A payload the worker refused (not what the job's schema says): failed at once, never retried. */
export class InvalidJobPayload extends Error {
  override readonly name = 'InvalidJobPayload';
}

function optionsFor<Schema extends TSchema>(
  definition: JobDefinition<Schema, unknown>,
  payload: Static<Schema>,
  runAt: Date | undefined,
): EnqueueOptions {
  const dedupeKey = definition.dedupeKey?.(payload);
  const fairKey = definition.fairKey?.(payload);
  return {
    maxAttempts: definition.retry.maxAttempts,
    ...(runAt ? { runAt } : {}),
    ...(dedupeKey === undefined ? {} : { dedupeKey }),
    ...(fairKey === undefined ? {} : { fairKey }),
  };
}

/**
 * Writes a job in the caller's transaction (it exists if and only if the change that needs it commits). Returns its
 * id, or undefined when its dedupe key is taken.
 */
export function enqueue<Schema extends TSchema>(
  tx: Queryable,
  clock: Clock,
  definition: JobDefinition<Schema, unknown>,
  payload: Static<Schema>,
  options: { runAt?: Date } = {},
): Promise<string | undefined> {
  return enqueueJob(
    tx,
    clock,
    definition.kind,
    payload as Record<string, unknown>,
    optionsFor(definition, payload, options.runAt),
  );
}

/** Many jobs of one kind in one statement, in the caller's transaction; their ids in the order given. */
export function enqueueMany<Schema extends TSchema>(
  tx: Queryable,
  clock: Clock,
  definition: JobDefinition<Schema, unknown>,
  jobs: readonly { payload: Static<Schema>; runAt?: Date }[],
): Promise<string[]> {
  return enqueueJobs(
    tx,
    clock,
    jobs.map(({ payload, runAt }) => jobOf(definition, payload, runAt ? { runAt } : {})),
  );
}

/** One job for enqueueAll: its definition and payload, type-checked together. */
export function jobOf<Schema extends TSchema>(
  definition: JobDefinition<Schema, unknown>,
  payload: Static<Schema>,
  options: { runAt?: Date } = {},
): JobSpec {
  return {
    kind: definition.kind,
    payload: payload as Record<string, unknown>,
    ...optionsFor(definition, payload, options.runAt),
  };
}

/**
 * Jobs of any kinds (made by jobOf) in one statement, in the caller's transaction: one round trip however many. A job
 * whose dedupe key is taken is not written. Their ids in the order given.
 */
export function enqueueAll(tx: Queryable, clock: Clock, jobs: readonly JobSpec[]): Promise<string[]> {
  return enqueueJobs(tx, clock, [...jobs]);
}

/**
 * The job's handler on its services, for a worker: checks the payload against the job's schema before running
 * (a payload that does not match fails at once with InvalidJobPayload) and carries the job's retry delays.
 */
export function jobHandler<Schema extends TSchema, Deps>(
  definition: DefinedJob<Schema, Deps>,
  deps: Deps,
): JobHandler & { kind: string } {
  const run = definition.run(deps);
  const payloadSchema = definition.payloadChecker();
  const handler: JobHandler & { kind: string } = async (ctx) => {
    const payload: unknown = ctx.job.payload;
    if (!payloadSchema.Check(payload)) {
      const [first] = payloadSchema.Errors(payload);
      throw new InvalidJobPayload(
        `payload of ${definition.kind} does not match its schema: ${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'}`,
      );
    }
    await run(payload, ctx);
  };
  handler.retryDelaysMs = definition.retry.delaysMs;
  if (definition.marksInFlight) handler.marksInFlight = true;
  handler.kind = definition.kind;
  return handler;
}
