import type { InferResult } from 'kysely';
import { generateWebhookSecret, replaceWebhookSecret } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db } from '../platform/db/db.ts';
import { cursorExists, newestFirstPage } from '../platform/db/pages.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { enqueue } from '../platform/jobs/define.ts';
import { webhookSecretEraseJob } from './jobs/webhook-secret-erase.ts';
import type { AttemptOutcome } from './metrics.ts';
import { recordEvent } from './record-event.ts';
import { redeliverEvent, redeliverFailed, retryPending } from './redelivery.ts';

/** A delivery's status as the operator sees it; `not_sent`: the integrator had no webhook URL when it happened. */
export const EVENT_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'not_sent'] as const;
export type EventDeliveryStatus = (typeof EVENT_DELIVERY_STATUSES)[number];

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** Events with their delivery's state (none yet: the delivery columns are null). */
function eventsWithDelivery() {
  return qb
    .selectFrom('events as e')
    .leftJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
    .select([
      'e.id',
      'e.integrator_id',
      'e.type',
      'e.data',
      'e.created_at',
      'd.status',
      'd.attempts',
      'd.round_attempts',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.last_status_code',
      'd.last_error',
      'd.delivered_at',
      'd.failed_at',
    ])
    .$narrowType<{ data: Record<string, unknown> }>();
}

export type EventRow = InferResult<ReturnType<typeof eventsWithDelivery>>[number];

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

/** The operator's view of webhooks: the delivery log, redelivery, and each integrator's endpoint and secret. */
export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Events newest first, each with its delivery's state. */
  async listEvents(filter: EventFilter): Promise<{ data: EventRow[]; has_more: boolean }> {
    let query = eventsWithDelivery();
    if (filter.integrator_id !== undefined) query = query.where('e.integrator_id', '=', filter.integrator_id);
    if (filter.type !== undefined) query = query.where('e.type', '=', filter.type);
    if (filter.since !== undefined) query = query.where('e.created_at', '>=', filter.since);
    if (filter.status === 'not_sent') query = query.where('d.event_id', 'is', null);
    else if (filter.status !== undefined) query = query.where('d.status', '=', filter.status);
    // An integrator's cursor must be one of its own events: another's is as unknown as a made-up id.
    if (
      filter.starting_after !== undefined &&
      !(await cursorExists(this.db, 'events', filter.starting_after, filter.integrator_id))
    ) {
      throw new ServiceError(
        'invalid_request',
        `Invalid querystring: starting_after: No event ${filter.starting_after}. Pass the event_id of the last event of the page you have.`,
      );
    }
    const page = await newestFirstPage(this.db, query, {
      table: 'events',
      alias: 'e',
      limit: filter.limit,
      startingAfter: filter.starting_after,
    });
    return { data: page.rows, has_more: page.has_more };
  }

  async getEvent(eventId: string): Promise<{ event: EventRow; attempts: AttemptRow[] }> {
    const event = await firstRow(this.db, eventsWithDelivery().where('e.id', '=', eventId));
    if (!event) throw new ServiceError('not_found', `No event ${eventId}.`);
    const attempts = await this.db.query<AttemptRow>(
      `SELECT number, url, attempted_at, latency_ms, status_code, outcome, error, response_body, next_attempt_at
         FROM webhook_attempts WHERE event_id = $1 ORDER BY number`,
      [eventId],
    );
    return { event, attempts };
  }

  /** See redeliverEvent. */
  redeliver(eventId: string): Promise<void> {
    return redeliverEvent(this.db, this.clock, eventId);
  }

  /** See redeliverFailed. */
  redeliverFailed(since: Date, integratorId?: string): Promise<number> {
    return redeliverFailed(this.db, this.clock, since, integratorId);
  }

  /** See retryPending. */
  retryPending(integratorId?: string): Promise<number> {
    return retryPending(this.db, this.clock, integratorId);
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
      const replaced = await replaceWebhookSecret(tx, integratorId, secret, now);
      if (replaced === undefined) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
      await tx.query(
        `INSERT INTO webhook_endpoints (integrator_id, previous_secret, previous_secret_expires_at, secret_rotated_at,
                                        updated_at)
         VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (integrator_id) DO UPDATE
           SET previous_secret = $2, previous_secret_expires_at = $3, secret_rotated_at = $4, updated_at = $4`,
        [integratorId, replaced, expires, now],
      );
      // A replaced secret is kept only while it still signs: erased when its overlap ends.
      await enqueue(
        tx,
        this.clock,
        webhookSecretEraseJob,
        { integrator_id: integratorId, expires_at: expires.toISOString() },
        { runAt: expires },
      );
      return { secret, previousSecretExpiresAt: expires };
    });
  }
}
