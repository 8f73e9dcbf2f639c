import { Type } from 'typebox';
import { Col, sqlStatement } from '../../platform/db/checked-sql.ts';
import { firstRow, qb } from '../../platform/db/query-builder.ts';
import { defineJob, enqueue, jobHandler, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { JobContext, JobHandler } from '../../platform/jobs/queue.ts';
import type { AddressPolicy } from '../../platform/net/safe-fetch.ts';
import { type AttemptOutcome, countAttempt } from '../metrics.ts';
import { type PostResult, postWebhook } from '../post.ts';
import { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter } from '../schedule.ts';
import { signedHeaders } from '../signing.ts';
import { type DeliveryToAttempt, deliveryBatches } from './delivery-batch.ts';

export interface WebhookDeliveryOptions {
  /** ALLOW_PRIVATE_WEBHOOK_HOSTS: lifts the address rule, for local testing only. */
  allowPrivate: boolean;
  /** Replaces the public-only address rule (tests); ignored when allowPrivate is set. */
  isAllowedAddress?: AddressPolicy;
  timeoutMs?: number;
  /** The jitter's source of randomness (tests). */
  random?: () => number;
}

/** The body `{type, timestamp, data}`; the same bytes for every attempt of an event. */
export function webhookBody(event: { type: string; created_at: Date; data: unknown }): string {
  return JSON.stringify({
    type: event.type,
    timestamp: new Date(event.created_at).toISOString(),
    data: event.data,
  });
}

interface Settled {
  status: 'pending' | 'delivered' | 'failed';
  outcome: AttemptOutcome;
  nextAttemptAt?: Date;
  error?: string;
}

function settle(result: PostResult, attemptsInRound: number, now: Date, random?: () => number): Settled {
  const status = result.status;
  if (status !== undefined && status >= 200 && status <= 299)
    return { status: 'delivered', outcome: 'delivered' };
  const honoursRetryAfter = status === 429 || status === 503;
  const error =
    result.error ??
    (status !== undefined && status >= 300 && status <= 399
      ? `HTTP ${status}: redirects are not followed; set the final URL.`
      : honoursRetryAfter && result.retryAfter !== undefined
        ? `HTTP ${status}, Retry-After: ${result.retryAfter.slice(0, 100)}.`
        : `HTTP ${status}.`);
  if (status === 410) {
    return { status: 'failed', outcome: 'disabled', error: `${error} The endpoint is disabled.` };
  }
  const retryAfterMs = honoursRetryAfter ? parseRetryAfter(result.retryAfter, now) : undefined;
  const next =
    attemptsInRound < MAX_ATTEMPTS
      ? nextAttemptAt(now, attemptsInRound, { retryAfterMs, random })
      : undefined;
  if (!next) return { status: 'failed', outcome: 'failed', error };
  return { status: 'pending', outcome: 'retry', nextAttemptAt: next, error };
}

/** An attempt whose outcome cannot be recorded: the delivery moved on to another job meanwhile. */
class DeliveryMovedOn extends Error {}

/** Ends the delivery without an attempt: there is nowhere to send it. */
async function failWithoutAttempt(ctx: JobContext, eventId: string, error: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, pending_since = NULL, job_id = NULL,
              last_error = $3, failed_at = $4, updated_at = $4
        WHERE event_id = $1 AND job_id = $2`,
      [eventId, ctx.job.id, error, now],
    );
    await ctx.complete?.(tx);
  });
}

const UPDATE_DELIVERY = sqlStatement(
  Col.row({ attempts: Col.int }),
  `
  UPDATE webhook_deliveries SET status = $3, round_attempts = round_attempts + 1, attempts = attempts + 1,
         next_attempt_at = $4, job_id = $9, last_attempt_at = $5, last_status_code = $6, last_error = $7,
         pending_since = CASE WHEN $3 = 'pending' THEN pending_since END,
         delivered_at = CASE WHEN $3 = 'delivered' THEN $8 ELSE delivered_at END,
         failed_at = CASE WHEN $3 = 'failed' THEN $8 END, retry_requested_at = NULL, updated_at = $8
   WHERE event_id = $1 AND job_id = $2
   RETURNING attempts`,
);

/** The attempt's row in the delivery log, the delivery's new state and the next attempt's job: one commit. */
async function recordAttempt(
  ctx: JobContext,
  delivery: DeliveryToAttempt,
  url: string,
  sentAt: Date,
  result: PostResult,
  settled: Settled,
): Promise<void> {
  const { clock, job } = ctx;
  const now = clock.now();
  if (ctx.lease && (settled.outcome === 'delivered' || settled.outcome === 'failed')) {
    // The common case, an attempt that ends the delivery: the delivery, its log row and the job's success commit
    // together, in a statement shared with the other attempts that end at the same time.
    const recorded = await deliveryBatches(ctx.db).recordFinal({
      event_id: delivery.event_id,
      job_id: job.id,
      worker: ctx.lease.worker,
      outcome: settled.outcome,
      url,
      sent_at: sentAt,
      latency_ms: result.latencyMs,
      status_code: result.status ?? null,
      error: settled.error ?? null,
      response_body: result.body ?? null,
      now,
    });
    if (!recorded) throw new DeliveryMovedOn();
    ctx.lease.completed();
    return;
  }
  const deliveryParams = [
    delivery.event_id,
    job.id,
    settled.status,
    settled.nextAttemptAt ?? null,
    sentAt,
    result.status ?? null,
    settled.error ?? null,
    now,
  ];
  await ctx.db.transaction(async (tx) => {
    if (settled.nextAttemptAt) {
      // retry-pending ran while this attempt was under way (the receiver is back, says the operator): next attempt now.
      const marked = await firstRow(
        tx,
        qb
          .selectFrom('webhook_deliveries')
          .select('retry_requested_at')
          .where('event_id', '=', delivery.event_id)
          .where('job_id', '=', job.id)
          .forUpdate(),
      );
      if (marked?.retry_requested_at) {
        settled.nextAttemptAt = now;
        deliveryParams[3] = now;
      }
    }
    const nextJob = settled.nextAttemptAt
      ? await enqueue(
          tx,
          clock,
          webhookDeliverJob,
          { event_id: delivery.event_id, integrator_id: delivery.integrator_id },
          { runAt: settled.nextAttemptAt },
        )
      : null;
    const row = await UPDATE_DELIVERY.first(tx, [...deliveryParams, nextJob]);
    if (!row) throw new DeliveryMovedOn();
    await tx.query(
      `INSERT INTO webhook_attempts (event_id, number, url, attempted_at, latency_ms, status_code, outcome, error,
                                     response_body, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        delivery.event_id,
        row.attempts,
        url,
        sentAt,
        result.latencyMs,
        result.status ?? null,
        settled.outcome,
        settled.error ?? null,
        result.body ?? null,
        settled.nextAttemptAt ?? null,
      ],
    );
    if (settled.outcome === 'disabled') {
      await tx.query(
        `INSERT INTO webhook_endpoints (integrator_id, disabled_url, disabled_at, disabled_reason, updated_at)
         VALUES ($1, $2, $3, $4, $3)
         ON CONFLICT (integrator_id) DO UPDATE
           SET disabled_url = $2, disabled_at = $3, disabled_reason = $4, updated_at = $3`,
        [delivery.integrator_id, url, now, `HTTP 410 Gone from ${url} at ${now.toISOString()}.`],
      );
    }
    await ctx.complete?.(tx);
  });
}

/**
 * One delivery attempt of one event. Signs the body per Standard Webhooks with the integrator's secret (and the
 * previous one during a rotation), POSTs it, and records the attempt; a failure schedules the next attempt on the
 * delivery retry schedule (schedule.ts) as a new job, so the job itself succeeds. A job run again after a crash (its
 * lease ran out) sends again with the same webhook-id: delivery is at least once. Fair per integrator: one
 * integrator's slow endpoint takes only a share of the workers.
 */
export const webhookDeliverJob = defineJob({
  kind: 'webhook.deliver',
  summary: 'Makes one delivery attempt of an event to the integrator’s endpoint; a failure enqueues the next',
  payload: Type.Object({ event_id: Type.String(), integrator_id: Type.Optional(Type.String()) }),
  retry: STANDARD_RETRY,
  fairKey: ({ integrator_id }) => integrator_id,
  marksInFlight: true,
  run: (options: WebhookDeliveryOptions) => (payload, ctx) => deliver(options, payload.event_id, ctx),
});

/** The delivery job on its address rules and timeout: the worker's handler. */
export function webhookDeliveryHandler(options: WebhookDeliveryOptions): JobHandler {
  return jobHandler(webhookDeliverJob, options);
}

async function deliver(options: WebhookDeliveryOptions, eventId: string, ctx: JobContext): Promise<void> {
  const { job, db, log } = ctx;
  const delivery = await deliveryBatches(db).load(eventId);
  if (delivery?.status !== 'pending' || delivery.job_id !== job.id) {
    log.info(
      { event_id: eventId, status: delivery?.status },
      'webhook attempt skipped: the delivery is finished or belongs to another job',
    );
    return;
  }
  const eventLog = log.child({ event_id: eventId, integrator_id: delivery.integrator_id });
  try {
    await attempt(ctx, options, delivery, eventId, eventLog);
  } catch (error) {
    // The job's own retries (not the delivery retry schedule) cover a passing fault such as a lost database. When
    // they are spent, the delivery is failed with the reason, where the operator sees it and can redeliver,
    // instead of staying pending with no job behind it.
    if (job.attempts < job.max_attempts) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    await failWithoutAttempt(ctx, eventId, `Could not be sent: ${reason}`);
    eventLog.error({ err: error }, 'webhook not sent: the delivery failed after the job’s last try');
  }
}

async function attempt(
  ctx: JobContext,
  options: WebhookDeliveryOptions,
  delivery: DeliveryToAttempt,
  eventId: string,
  eventLog: JobContext['log'],
): Promise<void> {
  const { clock } = ctx;
  const url = delivery.webhook_url;
  if (url === null) {
    await failWithoutAttempt(ctx, eventId, 'The integrator has no webhook URL.');
    eventLog.warn('webhook not sent: the integrator has no webhook URL');
    return;
  }
  if (delivery.disabled_url === url) {
    await failWithoutAttempt(ctx, eventId, `The endpoint is disabled: ${delivery.disabled_reason}`);
    eventLog.warn('webhook not sent: the endpoint is disabled');
    return;
  }

  await ctx.lease?.inFlight();
  const sentAt = clock.now();
  const secrets = [delivery.webhook_secret];
  const previousUntil = delivery.previous_secret_expires_at;
  if (delivery.previous_secret && previousUntil && new Date(previousUntil).getTime() > sentAt.getTime()) {
    secrets.push(delivery.previous_secret);
  }
  const body = webhookBody({
    type: delivery.type,
    created_at: delivery.event_created_at,
    data: delivery.data,
  });
  const result = await postWebhook(url, { ...signedHeaders(secrets, eventId, sentAt, body) }, body, {
    allowPrivate: options.allowPrivate,
    isAllowedAddress: options.isAllowedAddress,
    timeoutMs: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
  });
  // The attempt is made; recording it takes no place among the integrator's deliveries in flight.
  ctx.lease?.settling();
  const settled = settle(result, delivery.round_attempts + 1, clock.now(), options.random);
  let recorded = true;
  try {
    await recordAttempt(ctx, delivery, url, sentAt, result, settled);
  } catch (error) {
    // Only a job whose lease ran out while it still worked (over 5 minutes) gets here; the other job records.
    if (!(error instanceof DeliveryMovedOn)) throw error;
    recorded = false;
  }
  // An attempt another job took over from is that job's to count, so an outcome is never counted twice.
  if (recorded) countAttempt(settled.outcome, result.latencyMs);
  const fields = {
    status_code: result.status,
    latency_ms: result.latencyMs,
    attempt_in_round: delivery.round_attempts + 1,
    next_attempt_at: settled.nextAttemptAt?.toISOString(),
    error: settled.error,
    recorded,
  };
  if (settled.outcome === 'delivered') eventLog.info(fields, 'webhook delivered');
  else eventLog.warn(fields, `webhook attempt failed (${settled.outcome})`);
}
