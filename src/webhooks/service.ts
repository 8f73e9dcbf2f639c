import { generateWebhookSecret } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable, SqlParam } from '../platform/db/db.ts';
import { ServiceError } from '../platform/errors.ts';
import { enqueueJob, enqueueJobs, JOBS_CHANNEL, type JobHandler } from '../platform/jobs/queue.ts';
import type { AttemptOutcome } from './metrics.ts';
import { recordEvent } from './record-event.ts';
import { WEBHOOK_DELIVER_JOB } from './schedule.ts';

/** A delivery's status as the operator sees it; `not_sent`: the integrator had no webhook URL when it happened. */
export const EVENT_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'not_sent'] as const;
export type EventDeliveryStatus = (typeof EVENT_DELIVERY_STATUSES)[number];

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export interface EventRow {
  id: string;
  integrator_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
  status: 'pending' | 'delivered' | 'failed' | null;
  attempts: number | null;
  round_attempts: number | null;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  failed_at: Date | null;
}

export interface AttemptRow {
  number: number;
  url: string;
  attempted_at: Date;
  latency_ms: number;
  status_code: number | null;
  outcome: AttemptOutcome;
  error: string | null;
  response_body: string | null;
  next_attempt_at: Date | null;
}

export interface EndpointRow {
  integrator_id: string;
  webhook_url: string | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  disabled_url: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  pending: number;
  failed: number;
}

export interface IntegratorEndpoint {
  url: string | null;
  state: 'enabled' | 'disabled';
  created_at: Date;
  updated_at: Date;
  previous_secret_expires_at: Date | null;
}

export interface EventFilter {
  integrator_id?: string;
  status?: EventDeliveryStatus;
  type?: string;
  since?: Date;
  limit: number;
  starting_after?: string;
}

const EVENT_COLUMNS = `e.id, e.integrator_id, e.type, e.data, e.created_at, d.status, d.attempts, d.round_attempts,
  d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_error, d.delivered_at, d.failed_at`;

/**
 * Starts a new round for deliveries (listed as `[{event_id, job_id}]` in $1): pending, due now ($2), with the job
 * that may attempt them next.
 */
const NEW_ROUND = `
  UPDATE webhook_deliveries d SET status = 'pending', round_attempts = 0, next_attempt_at = $2, pending_since = $2,
         failed_at = NULL, job_id = x.job_id, updated_at = $2
    FROM jsonb_to_recordset($1::jsonb) AS x(event_id text, job_id text)
   WHERE d.event_id = x.event_id`;

/** The operator's view of webhooks: the delivery log, redelivery, and each integrator's endpoint and secret. */
const REDELIVERY_BATCH = 1_000;

export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Events newest first, each with its delivery's state. */
  async listEvents(filter: EventFilter): Promise<{ data: EventRow[]; has_more: boolean }> {
    const where: string[] = [];
    const params: SqlParam[] = [];
    const add = (clause: (n: string) => string, value: SqlParam) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (filter.integrator_id !== undefined) add((n) => `e.integrator_id = ${n}`, filter.integrator_id);
    if (filter.type !== undefined) add((n) => `e.type = ${n}`, filter.type);
    if (filter.since !== undefined) add((n) => `e.created_at >= ${n}`, filter.since);
    if (filter.status === 'not_sent') where.push('d.event_id IS NULL');
    else if (filter.status !== undefined) add((n) => `d.status = ${n}`, filter.status);
    if (filter.starting_after !== undefined) {
      // An integrator's cursor must be one of its own events: another's is as unknown as a made-up id.
      const [cursor] = await this.db.query(
        'SELECT id FROM events WHERE id = $1 AND ($2::text IS NULL OR integrator_id = $2)',
        [filter.starting_after, filter.integrator_id ?? null],
      );
      if (!cursor) {
        throw new ServiceError(
          'invalid_request',
          `Invalid querystring: starting_after: No event ${filter.starting_after}. Pass the event_id of the last event of the page you have.`,
        );
      }
      add(
        (n) => `(e.created_at, e.id) < (SELECT created_at, id FROM events WHERE id = ${n})`,
        filter.starting_after,
      );
    }
    params.push(filter.limit + 1);
    const rows = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
      params,
    );
    return { data: rows.slice(0, filter.limit), has_more: rows.length > filter.limit };
  }

  async getEvent(eventId: string): Promise<{ event: EventRow; attempts: AttemptRow[] }> {
    const [event] = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.id = $1`,
      [eventId],
    );
    if (!event) throw new ServiceError('not_found', `No event ${eventId}.`);
    const attempts = await this.db.query<AttemptRow>(
      `SELECT number, url, attempted_at, latency_ms, status_code, outcome, error, response_body, next_attempt_at
         FROM webhook_attempts WHERE event_id = $1 ORDER BY number`,
      [eventId],
    );
    return { event, attempts };
  }

  /**
   * Sends one event again, with the same webhook-id, to the integrator's current URL: a new round of the schedule
   * (an event that never had a delivery gets one). A delivery still pending has its next attempt brought forward to
   * now, unless that attempt is under way.
   */
  async redeliver(eventId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      const [event] = await tx.query<{
        integrator_id: string;
        webhook_url: string | null;
        disabled: boolean;
      }>(
        `SELECT e.integrator_id, i.webhook_url, w.disabled_url IS NOT NULL AND w.disabled_url = i.webhook_url AS disabled
           FROM events e JOIN integrators i ON i.id = e.integrator_id
           LEFT JOIN webhook_endpoints w ON w.integrator_id = i.id
          WHERE e.id = $1`,
        [eventId],
      );
      if (!event) throw new ServiceError('not_found', `No event ${eventId}.`);
      if (event.webhook_url === null) {
        throw new ServiceError(
          'conflict',
          `Integrator ${event.integrator_id} has no webhook URL; set one first.`,
        );
      }
      if (event.disabled) {
        throw new ServiceError(
          'conflict',
          `The webhook endpoint of integrator ${event.integrator_id} is disabled (it answered 410 Gone); enable it or set another URL first.`,
        );
      }
      await tx.query(
        `INSERT INTO webhook_deliveries (event_id, integrator_id, status, round_attempts, created_at, updated_at)
         VALUES ($1, $2, 'failed', 0, $3, $3) ON CONFLICT (event_id) DO NOTHING`,
        [eventId, event.integrator_id, now],
      );
      // The row lock serialises this with the worker's recording of an attempt, and with other redeliveries.
      const [delivery] = await tx.query<{ status: string; job_id: string | null }>(
        'SELECT status, job_id FROM webhook_deliveries WHERE event_id = $1 FOR UPDATE',
        [eventId],
      );
      if (delivery!.status === 'pending') {
        const [job] = await tx.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1 FOR UPDATE', [
          delivery!.job_id,
        ]);
        // An attempt under way decides what comes next; a redelivery now would send the event twice at once.
        if (job?.status === 'running') {
          throw new ServiceError(
            'conflict',
            `An attempt to deliver ${eventId} is under way (at most 15 s); redeliver again once it has ended.`,
          );
        }
        if (job?.status === 'pending') {
          await tx.query('UPDATE jobs SET run_at = $2, updated_at = $2 WHERE id = $1', [
            delivery!.job_id,
            now,
          ]);
          await tx.query(
            'UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $2 WHERE event_id = $1',
            [eventId, now],
          );
          await notifyWorkers(tx);
          return;
        }
        // Its job is gone or failed (the queue gave up on it): a new round repairs the delivery.
      }
      await newRounds(tx, this.clock, [eventId]);
    });
  }

  /**
   * Sends again every failed delivery that failed at or after `since` (of one integrator, or all), for integrators
   * whose endpoint is set and enabled. Returns how many are now pending. Works in committed batches, so a large
   * backlog neither holds one long transaction nor builds one huge statement.
   */
  async redeliverFailed(since: Date, integratorId?: string): Promise<number> {
    let redelivered = 0;
    for (;;) {
      const batch = await this.db.transaction(async (tx) => {
        const rows = await tx.query<{ event_id: string }>(
          `SELECT d.event_id
             FROM webhook_deliveries d
             JOIN integrators i ON i.id = d.integrator_id
             LEFT JOIN webhook_endpoints w ON w.integrator_id = i.id
            WHERE d.status = 'failed' AND d.failed_at >= $1 AND ($2::text IS NULL OR d.integrator_id = $2)
              AND i.webhook_url IS NOT NULL AND (w.disabled_url IS NULL OR w.disabled_url <> i.webhook_url)
            LIMIT $3
            FOR UPDATE OF d SKIP LOCKED`,
          [since, integratorId ?? null, REDELIVERY_BATCH],
        );
        await newRounds(
          tx,
          this.clock,
          rows.map((row) => row.event_id),
        );
        return rows.length;
      });
      redelivered += batch;
      if (batch < REDELIVERY_BATCH) return redelivered;
    }
  }

  async endpoint(integratorId: string): Promise<EndpointRow> {
    const [row] = await this.db.query<EndpointRow>(
      `SELECT i.id AS integrator_id, i.webhook_url, w.previous_secret_expires_at, w.secret_rotated_at,
              w.disabled_url, w.disabled_at, w.disabled_reason,
              (SELECT count(*)::int FROM webhook_deliveries WHERE integrator_id = i.id AND status = 'pending') AS pending,
              (SELECT count(*)::int FROM webhook_deliveries WHERE integrator_id = i.id AND status = 'failed') AS failed
         FROM integrators i LEFT JOIN webhook_endpoints w ON w.integrator_id = i.id
        WHERE i.id = $1`,
      [integratorId],
    );
    if (!row) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
    return row;
  }

  /** The integrator's own view of its endpoint: its URL, whether a 410 disabled it, and when it changed. */
  async integratorEndpoint(integratorId: string): Promise<IntegratorEndpoint> {
    const [row] = await this.db.query<IntegratorEndpoint>(
      `SELECT i.webhook_url AS url,
              CASE WHEN w.disabled_url IS NOT NULL AND w.disabled_url = i.webhook_url THEN 'disabled' ELSE 'enabled' END
                AS state,
              i.created_at, GREATEST(i.updated_at, w.updated_at) AS updated_at,
              CASE WHEN w.previous_secret_expires_at > $2 THEN w.previous_secret_expires_at END
                AS previous_secret_expires_at
         FROM integrators i LEFT JOIN webhook_endpoints w ON w.integrator_id = i.id
        WHERE i.id = $1`,
      [integratorId, this.clock.now()],
    );
    if (!row) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
    return row;
  }

  /** The current signing secret (for an integrator that has just set its first URL). */
  async currentSecret(integratorId: string): Promise<string> {
    const [row] = await this.db.query<{ webhook_secret: string }>(
      'SELECT webhook_secret FROM integrators WHERE id = $1',
      [integratorId],
    );
    if (!row) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
    return row.webhook_secret;
  }

  /**
   * A `ping` event for the integrator, delivered like any other (and listed, so `rentpay listen` forwards it even
   * without a URL). Returns its id.
   */
  async sendTestEvent(integratorId: string): Promise<string> {
    return this.db.transaction((tx) =>
      recordEvent(tx, this.clock, integratorId, 'ping', { integrator_id: integratorId }),
    );
  }

  /** Lifts a 410's disabling: deliveries to the URL are attempted again (failed ones only once redelivered). */
  async enableEndpoint(integratorId: string): Promise<EndpointRow> {
    await this.endpoint(integratorId);
    await this.db.query(
      `UPDATE webhook_endpoints SET disabled_url = NULL, disabled_at = NULL, disabled_reason = NULL, updated_at = $2
        WHERE integrator_id = $1`,
      [integratorId, this.clock.now()],
    );
    return this.endpoint(integratorId);
  }

  /**
   * A new webhook secret. The one it replaces keeps signing beside it for `overlapMs` (SECRET_OVERLAP_MS unless
   * given; each delivery carries both signatures) and is then erased; a secret replaced earlier stops (and is overwritten) at once, so at most
   * two ever sign.
   */
  async rotateSecret(
    integratorId: string,
    overlapMs = SECRET_OVERLAP_MS,
  ): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + overlapMs);
    const secret = generateWebhookSecret();
    return this.db.transaction(async (tx) => {
      const [current] = await tx.query<{ webhook_secret: string }>(
        'SELECT webhook_secret FROM integrators WHERE id = $1 FOR UPDATE',
        [integratorId],
      );
      if (!current) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
      await tx.query('UPDATE integrators SET webhook_secret = $2, updated_at = $3 WHERE id = $1', [
        integratorId,
        secret,
        now,
      ]);
      await tx.query(
        `INSERT INTO webhook_endpoints (integrator_id, previous_secret, previous_secret_expires_at, secret_rotated_at,
                                        updated_at)
         VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (integrator_id) DO UPDATE
           SET previous_secret = $2, previous_secret_expires_at = $3, secret_rotated_at = $4, updated_at = $4`,
        [integratorId, current.webhook_secret, expires, now],
      );
      // A replaced secret is kept only while it still signs: erased when its overlap ends.
      await enqueueJob(
        tx,
        this.clock,
        WEBHOOK_SECRET_ERASE_JOB,
        { integrator_id: integratorId },
        { runAt: expires, dedupeKey: `${WEBHOOK_SECRET_ERASE_JOB}:${integratorId}:${expires.toISOString()}` },
      );
      return { secret, previousSecretExpiresAt: expires };
    });
  }
}

/** Payload `{integrator_id}`: erases the replaced webhook secret once its overlap has ended. */
export const WEBHOOK_SECRET_ERASE_JOB = 'webhook.secret-erase';

/**
 * Erases a replaced secret whose overlap is over. Idempotent, and harmless when a later rotation has put another
 * secret in its place: that one's overlap has not ended, so it is left for its own job.
 */
export const webhookSecretEraseHandler: JobHandler = async ({ job, db, clock }) => {
  await db.query(
    `UPDATE webhook_endpoints SET previous_secret = NULL, updated_at = $2
      WHERE integrator_id = $1 AND previous_secret IS NOT NULL AND previous_secret_expires_at <= $2`,
    [String(job.payload.integrator_id), clock.now()],
  );
};

/** For each event: a delivery job due now, a new round naming it, and a wake-up for workers once this commits. */
async function newRounds(tx: Queryable, clock: Clock, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  const jobIds = await enqueueJobs(
    tx,
    clock,
    eventIds.map((eventId) => ({ kind: WEBHOOK_DELIVER_JOB, payload: { event_id: eventId } })),
  );
  await tx.query(NEW_ROUND, [
    eventIds.map((eventId, i) => ({ event_id: eventId, job_id: jobIds[i] })),
    clock.now(),
  ]);
  await notifyWorkers(tx);
}

async function notifyWorkers(tx: Queryable): Promise<void> {
  await tx.notifyOnCommit(JOBS_CHANNEL, WEBHOOK_DELIVER_JOB);
}
