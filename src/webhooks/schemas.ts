import { type Static, Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';
import { webhookBody } from './jobs/webhook-deliver.ts';
import { ATTEMPT_OUTCOMES } from './metrics.ts';
import { MAX_ATTEMPTS } from './schedule.ts';
import { type AttemptRow, type EndpointRow, EVENT_DELIVERY_STATUSES, type EventRow } from './service.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const iso = (value: Date | null): string | null => (value === null ? null : new Date(value).toISOString());

export const WebhookEventView = Type.Object(
  {
    event_id: Type.String({ description: 'Also the webhook-id header of every attempt.' }),
    integrator_id: Type.String(),
    type: Type.String(),
    created_at: Timestamp,
    status: Type.Enum([...EVENT_DELIVERY_STATUSES], {
      description: '`not_sent`: the integrator had no webhook URL when the event happened.',
    }),
    attempt_count: Type.Integer({ description: 'Every attempt so far, redeliveries included.' }),
    attempts_in_round: Type.Integer({
      description: `Attempts since the delivery began or was last redelivered; the round ends after ${MAX_ATTEMPTS}.`,
    }),
    next_attempt_at: Nullable(Timestamp),
    last_attempt_at: Nullable(Timestamp),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    delivered_at: Nullable(Timestamp),
    failed_at: Nullable(Timestamp),
  },
  { title: 'WebhookEvent' },
);
export type WebhookEventView = Static<typeof WebhookEventView>;

export function webhookEventView(row: EventRow): WebhookEventView {
  return {
    event_id: row.id,
    integrator_id: row.integrator_id,
    type: row.type,
    created_at: new Date(row.created_at).toISOString(),
    status: row.status ?? 'not_sent',
    attempt_count: row.attempts ?? 0,
    attempts_in_round: row.round_attempts ?? 0,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    last_attempt_at: iso(row.last_attempt_at),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    delivered_at: iso(row.delivered_at),
    failed_at: iso(row.failed_at),
  };
}

export const WebhookAttemptView = Type.Object(
  {
    number: Type.Integer(),
    url: Type.String(),
    attempted_at: Timestamp,
    latency_ms: Type.Integer(),
    status_code: Nullable(Type.Integer({ description: 'null when no HTTP answer came.' })),
    outcome: Type.Enum([...ATTEMPT_OUTCOMES], {
      description:
        'delivered (2xx); retry (failed, another attempt was scheduled); failed (the last attempt of its round); disabled (410 Gone).',
    }),
    error: Nullable(Type.String()),
    response_body: Nullable(Type.String({ description: 'The first 1 KB of the answer.' })),
    next_attempt_at: Nullable(Timestamp),
  },
  { title: 'WebhookAttempt' },
);

export const WebhookEventDetailView = Type.Object(
  {
    ...WebhookEventView.properties,
    payload: Type.String({ description: 'The body sent, exactly: {"type", "timestamp", "data"}.' }),
    attempts: Type.Array(WebhookAttemptView),
  },
  { title: 'WebhookEventDetail' },
);
export type WebhookEventDetailView = Static<typeof WebhookEventDetailView>;

export function webhookEventDetailView(row: EventRow, attempts: AttemptRow[]): WebhookEventDetailView {
  return {
    ...webhookEventView(row),
    payload: webhookBody(row),
    attempts: attempts.map((a) => ({
      number: a.number,
      url: a.url,
      attempted_at: new Date(a.attempted_at).toISOString(),
      latency_ms: a.latency_ms,
      status_code: a.status_code,
      outcome: a.outcome,
      error: a.error,
      response_body: a.response_body,
      next_attempt_at: iso(a.next_attempt_at),
    })),
  };
}

export const WebhookEndpointView = Type.Object(
  {
    integrator_id: Type.String(),
    webhook_url: Nullable(Type.String()),
    state: Type.Enum(['enabled', 'disabled', 'none'], {
      description:
        '`none`: no webhook URL (events are kept, nothing is sent); `disabled`: the URL answered 410 Gone.',
    }),
    disabled_at: Nullable(Timestamp),
    disabled_reason: Nullable(Type.String()),
    secret_rotated_at: Nullable(Timestamp),
    previous_secret_expires_at: Nullable(Timestamp),
    pending: Type.Integer({ description: 'Deliveries waiting for an attempt.' }),
    failed: Type.Integer({ description: 'Deliveries failed and not redelivered.' }),
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointView = Static<typeof WebhookEndpointView>;

export function webhookEndpointView(row: EndpointRow, now: Date): WebhookEndpointView {
  const disabled = row.webhook_url !== null && row.disabled_url === row.webhook_url;
  const overlap =
    row.previous_secret_expires_at !== null &&
    new Date(row.previous_secret_expires_at).getTime() > now.getTime();
  return {
    integrator_id: row.integrator_id,
    webhook_url: row.webhook_url,
    state: row.webhook_url === null ? 'none' : disabled ? 'disabled' : 'enabled',
    disabled_at: disabled ? iso(row.disabled_at) : null,
    disabled_reason: disabled ? row.disabled_reason : null,
    secret_rotated_at: iso(row.secret_rotated_at),
    previous_secret_expires_at: overlap ? iso(row.previous_secret_expires_at) : null,
    pending: row.pending,
    failed: row.failed,
  };
}

/** A webhook secret rotation's answer: the new secret, shown once. */
export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'The new secret (whsec_…), shown once.' }),
  previous_secret_expires_at: Timestamp,
});
