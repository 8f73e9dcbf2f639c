import { type InferResult, type NotNull, type Selectable, sql } from 'kysely';
import { type Actor, requirePermission } from '../audit/actor.ts';
import { recordAudit } from '../audit/log.ts';
import { generateWebhookSecret, replaceWebhookSecret } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db } from '../platform/db/db.ts';
import { cursorExists, newestFirstPage } from '../platform/db/pages.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { WebhookAttemptsTable } from '../platform/db/tables.ts';
import { ServiceError } from '../platform/errors.ts';
import { enqueue } from '../platform/jobs/define.ts';
import { type IntegratorBacklog, webhookBacklogByIntegrator } from './backlog.ts';
import { webhookSecretEraseJob } from './jobs/webhook-secret-erase.ts';
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

/** An attempt at delivering an event: its webhook_attempts row but the event id. */
export type AttemptRow = Omit<Selectable<WebhookAttemptsTable>, 'event_id'>;

/** Integrators with their endpoint's state and how many of their deliveries are pending and failed. */
function endpoints() {
  return qb
    .selectFrom('integrators as i')
    .leftJoin('webhook_endpoints as w', 'w.integrator_id', 'i.id')
    .select((eb) => {
      const deliveries = (status: 'pending' | 'failed') =>
        eb
          .selectFrom('webhook_deliveries as d')
          .select(sql<number>`count(*)::int`.as('count'))
          .whereRef('d.integrator_id', '=', 'i.id')
          .where('d.status', '=', status);
      return [
        'i.id as integrator_id',
        'i.webhook_url',
        'w.previous_secret_expires_at',
        'w.secret_rotated_at',
        'w.disabled_url',
        'w.disabled_at',
        'w.disabled_reason',
        deliveries('pending').as('pending'),
        deliveries('failed').as('failed'),
      ];
    })
    .$narrowType<{ pending: NotNull; failed: NotNull }>();
}

export type EndpointRow = InferResult<ReturnType<typeof endpoints>>[number];

/** Integrators' endpoints as the integrator sees its own; `now` tells whether a previous secret still signs. */
function integratorEndpoints(now: Date) {
  return qb
    .selectFrom('integrators as i')
    .leftJoin('webhook_endpoints as w', 'w.integrator_id', 'i.id')
    .select((eb) => [
      'i.webhook_url as url',
      eb
        .case()
        // A 410 disabled the endpoint at the URL it has now.
        .when(
          eb.and([eb('w.disabled_url', 'is not', null), eb('w.disabled_url', '=', eb.ref('i.webhook_url'))]),
        )
        .then(sql.lit<'disabled' | 'enabled'>('disabled'))
        .else(sql.lit<'disabled' | 'enabled'>('enabled'))
        .end()
        .as('state'),
      'i.created_at',
      eb.fn<Date>('greatest', ['i.updated_at', 'w.updated_at']).as('updated_at'),
      eb
        .case()
        .when('w.previous_secret_expires_at', '>', now)
        .then(eb.ref('w.previous_secret_expires_at'))
        .end()
        .as('previous_secret_expires_at'),
    ]);
}

export type IntegratorEndpoint = InferResult<ReturnType<typeof integratorEndpoints>>[number];

export interface WebhookHealth {
  failed: number;
  pending: number;
  retrying: number;
  oldest_pending_since: Date | null;
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

  /** Every integrator's deliveries not delivered (pending and since when, failed), in one grouped query. */
  backlogByIntegrator(): Promise<Map<string, IntegratorBacklog>> {
    return webhookBacklogByIntegrator(this.db);
  }

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
    return { event, attempts: await this.#attempts(eventId) };
  }

  /**
   * One of the integrator's events with its attempts; another integrator's event is as unknown as one that does not
   * exist (404 with `unknownDetail`).
   */
  async integratorEvent(
    integratorId: string,
    eventId: string,
    unknownDetail = `No event ${eventId}.`,
  ): Promise<{ event: EventRow; attempts: AttemptRow[] }> {
    const event = await firstRow(
      this.db,
      eventsWithDelivery().where('e.id', '=', eventId).where('e.integrator_id', '=', integratorId),
    );
    if (!event) throw new ServiceError('not_found', unknownDetail);
    return { event, attempts: await this.#attempts(eventId) };
  }

  #attempts(eventId: string): Promise<AttemptRow[]> {
    return rows(
      this.db,
      qb
        .selectFrom('webhook_attempts')
        .select([
          'number',
          'url',
          'attempted_at',
          'latency_ms',
          'status_code',
          'outcome',
          'error',
          'response_body',
          'next_attempt_at',
        ])
        .where('event_id', '=', eventId)
        .orderBy('number'),
    );
  }

  /**
   * The integrator's webhook deliveries in trouble or waiting: failed (every attempt of their round failed), pending
   * (and of those, retrying after a failed attempt), and when the oldest pending one began waiting.
   */
  async health(integratorId: string): Promise<WebhookHealth> {
    const row = await firstRow(
      this.db,
      qb
        .selectFrom('webhook_deliveries')
        .select([
          sql<number>`count(*) FILTER (WHERE status = 'failed')::int`.as('failed'),
          sql<number>`count(*) FILTER (WHERE status = 'pending')::int`.as('pending'),
          sql<number>`count(*) FILTER (WHERE status = 'pending' AND round_attempts > 0)::int`.as('retrying'),
          sql<Date | null>`min(pending_since) FILTER (WHERE status = 'pending')`.as('oldest_pending_since'),
        ])
        .where('integrator_id', '=', integratorId)
        .where('status', 'in', ['pending', 'failed']),
    );
    return row!;
  }

  /** The integrator's events about a payment (its data's payment), oldest first, each with its delivery's state. */
  paymentEvents(integratorId: string, paymentId: string): Promise<EventRow[]> {
    return rows(
      this.db,
      eventsWithDelivery()
        .where(sql`e.data -> 'payment' ->> 'payment_id'`, '=', paymentId)
        .where('e.integrator_id', '=', integratorId)
        .orderBy('e.created_at')
        .orderBy('e.id'),
    );
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
    const row = await firstRow(this.db, endpoints().where('i.id', '=', integratorId));
    if (!row) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
    return row;
  }

  /** The integrator's own view of its endpoint: its URL, whether a 410 disabled it, and when it changed. */
  async integratorEndpoint(integratorId: string): Promise<IntegratorEndpoint> {
    const row = await firstRow(
      this.db,
      integratorEndpoints(this.clock.now()).where('i.id', '=', integratorId),
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

  /**
   * Lifts a 410's disabling: deliveries to the URL are attempted again (failed ones only once redelivered). Audited
   * as the actor's when the endpoint was disabled.
   */
  async enableEndpoint(integratorId: string, actor: Actor): Promise<EndpointRow> {
    requirePermission(actor, 'webhooks.manage');
    await this.endpoint(integratorId);
    await this.db.transaction(async (tx) => {
      const [lifted] = await tx.query(
        `UPDATE webhook_endpoints SET disabled_url = NULL, disabled_at = NULL, disabled_reason = NULL, updated_at = $2
          WHERE integrator_id = $1 AND disabled_url IS NOT NULL
          RETURNING integrator_id`,
        [integratorId, this.clock.now()],
      );
      if (lifted) {
        await recordAudit(tx, this.clock, actor, {
          scope: integratorId,
          action: 'webhook_endpoint.enable',
          target: { type: 'integrator', id: integratorId },
          before: { disabled: true },
          after: { disabled: false },
        });
      }
    });
    return this.endpoint(integratorId);
  }

  /**
   * A new webhook secret. The one it replaces keeps signing beside it for `overlapMs` (SECRET_OVERLAP_MS unless
   * given; each delivery carries both signatures) and is then erased; a secret replaced earlier stops (and is
   * overwritten) at once, so at most two ever sign. Audited as the actor's.
   */
  async rotateSecret(
    integratorId: string,
    actor: Actor,
    overlapMs = SECRET_OVERLAP_MS,
  ): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
    requirePermission(actor, 'webhooks.manage');
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
      await recordAudit(tx, this.clock, actor, {
        scope: integratorId,
        action: 'webhook_secret.rotate',
        target: { type: 'integrator', id: integratorId },
        after: { previous_secret_expires_at: expires.toISOString() },
      });
      return { secret, previousSecretExpiresAt: expires };
    });
  }
}
