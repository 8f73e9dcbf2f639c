/**
 * What each event's `data` holds, as schemas: the payload builders return these types, and the OpenAPI document's
 * `webhooks` section is generated from them, so the reference and the deliveries cannot drift apart.
 */

import { type Static, type TSchema, Type } from 'typebox';
import { PaymentView } from '../payments/view.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { ScheduleView } from '../schedules/view.ts';
import type { EventType } from './record-event.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$' });

const Tenant = {
  user_id: Type.Integer({ description: 'Your user_id of the tenant.' }),
  email: Type.String(),
  payment_reference: Type.String({ description: 'The tenancy’s payment_reference.' }),
};

export const RefundEventView = Type.Object(
  {
    refund_id: Type.String(),
    amount: Money,
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    created_at: Timestamp,
  },
  { description: 'The refund this event is about (payment_refunded only).' },
);

export const PaymentEventData = Type.Object(
  {
    payment: PaymentView,
    ...Tenant,
    refund: Type.Optional(RefundEventView),
    retry_on: Type.Optional(
      Type.Union([Type.String({ format: 'date' }), Type.Null()], {
        description:
          'A recurring charge that failed: the date the schedule tries again, or null when it will not (payment_failed of a schedule only).',
      }),
    ),
  },
  { title: 'PaymentEventData' },
);
export type PaymentEventData = Static<typeof PaymentEventData>;

export const ScheduleEventData = Type.Object(
  { schedule: ScheduleView, ...Tenant },
  { title: 'ScheduleEventData' },
);
export type ScheduleEventData = Static<typeof ScheduleEventData>;

export const DocumentEventData = Type.Object(
  {
    user_id: Tenant.user_id,
    payment_reference: Type.Union([Type.String(), Type.Null()], {
      description:
        'The tenancy’s payment_reference for its agreement; null for the tenant’s own ID documents.',
    }),
    document: Type.Object({
      document_id: Type.String(),
      kind: Type.Union([
        Type.Literal('agreement'),
        Type.Literal('pii_front'),
        Type.Literal('pii_back'),
        Type.Literal('photo'),
      ]),
      url: Type.String({ description: 'The URL it was to be fetched from.' }),
      state: Type.Literal('failed'),
      updated_at: Timestamp,
    }),
    failure_reason: Type.String(),
  },
  { title: 'DocumentEventData' },
);
export type DocumentEventData = Static<typeof DocumentEventData>;

export const PingEventData = Type.Object({ integrator_id: Type.String() }, { title: 'PingEventData' });

/** Every event type: when it is sent and its data. A type without an entry does not compile. */
export const EVENT_TYPES: Record<EventType, { when: string; data: TSchema }> = {
  payment_success: { when: 'A payment succeeded.', data: PaymentEventData },
  payment_failed: {
    when: 'A payment failed (declined, a failed 3DS or provider step, or an error at the processor).',
    data: PaymentEventData,
  },
  payment_refunded: { when: 'A refund of a payment succeeded, partial or full.', data: PaymentEventData },
  schedule_created: { when: 'A tenant set up recurring rent.', data: ScheduleEventData },
  schedule_paused: { when: 'A recurring rent schedule was paused.', data: ScheduleEventData },
  schedule_resumed: { when: 'A paused schedule was resumed.', data: ScheduleEventData },
  schedule_canceled: { when: 'A schedule was cancelled.', data: ScheduleEventData },
  document_failed: { when: 'A document given at onboarding could not be fetched.', data: DocumentEventData },
  ping: {
    when: 'You asked for a test event (POST /api/third-party/webhook-endpoint/test/).',
    data: PingEventData,
  },
};

/** The body of a delivery of `type`: `{"type", "timestamp", "data"}`. */
export function webhookBodySchema(type: EventType): TSchema {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({
        format: 'date-time',
        description: 'When the event happened (ISO 8601, UTC).',
      }),
      data: EVENT_TYPES[type].data,
    },
    { title: `${type} event` },
  );
}
