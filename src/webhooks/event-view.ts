import { Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';
import { EVENT_DELIVERY_STATUSES, type EventRow } from './service.ts';

/** An event as its integrator sees it, with its delivery. */
export const IntegratorEvent = Type.Object(
  {
    event_id: Type.String({ description: 'Also the webhook-id header of every delivery of it.' }),
    type: Type.String({ description: 'payment_success, payment_failed, … (see Webhook events).' }),
    created_at: Timestamp,
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'The webhook body’s `data`.' }),
    delivery: Type.Object({
      status: Type.Enum([...EVENT_DELIVERY_STATUSES], {
        description:
          '`not_sent`: you had no webhook URL when it happened; `failed`: every attempt of its round failed.',
      }),
      attempts: Type.Integer({ description: 'Attempts so far, redeliveries included.' }),
    }),
  },
  { title: 'Event' },
);

export function eventView(row: EventRow) {
  return {
    event_id: row.id,
    type: row.type,
    created_at: new Date(row.created_at).toISOString(),
    data: row.data,
    delivery: { status: row.status ?? ('not_sent' as const), attempts: row.attempts ?? 0 },
  };
}
