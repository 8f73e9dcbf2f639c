/**
 * What each event's `data` holds, as schemas: the payload builders of each domain return these types, and the
 * OpenAPI document's `webhooks` section is generated from them, so the reference and the deliveries cannot drift.
 */

import { type TSchema, Type } from 'typebox';
import { DocumentEventData } from '../documents/events.ts';
import { RentReminderEventData } from '../ledger/events.ts';
import { PaymentEventData } from '../payments/events.ts';
import { PayoutEventData } from '../payouts/view.ts';
import { ScheduleEventData } from '../schedules/view.ts';
import { PingEventData } from '../webhooks/event-data.ts';
import type { EventType } from '../webhooks/record-event.ts';

/** Every event type: when it is sent and its data. A type without an entry does not compile. */
export const EVENT_TYPES: Record<EventType, { when: string; data: TSchema }> = {
  payment_success: { when: 'A payment succeeded.', data: PaymentEventData },
  payment_failed: {
    when: 'A payment failed (declined, a failed 3DS or provider step, or an error at the processor).',
    data: PaymentEventData,
  },
  payment_action_required: {
    when:
      'A recurring charge needs the tenant: their bank wants them to authenticate it (Strong Customer Authentication). ' +
      'The next session you open for them asks them to confirm it; `action_required.confirm_by` is the last day ' +
      'they can. Then payment_success, or payment_failed (authentication_required) the day after confirm_by.',
    data: PaymentEventData,
  },
  payment_refunded: { when: 'A refund of a payment succeeded, partial or full.', data: PaymentEventData },
  refund_failed: {
    when:
      'A refund the card processor had accepted failed after all (e.g. the card was closed): the money stayed with ' +
      'you, `payment.refunded` is lowered again, and `refund.failure_code` says why. Refund the tenant another way, ' +
      'or try again.',
    data: PaymentEventData,
  },
  payment_disputed: {
    when:
      'The cardholder disputed a payment (a chargeback, or an inquiry from the card issuer); its rent is held back ' +
      'from payouts until the dispute ends.',
    data: PaymentEventData,
  },
  payment_dispute_closed: {
    when:
      'A payment’s dispute ended: won (nothing changes), or lost (the disputed amount went back to the cardholder, ' +
      'and the tenancy’s ledger owes its rent again).',
    data: PaymentEventData,
  },
  schedule_created: { when: 'A tenant set up recurring rent.', data: ScheduleEventData },
  schedule_paused: { when: 'A recurring rent schedule was paused.', data: ScheduleEventData },
  schedule_resumed: { when: 'A paused schedule was resumed.', data: ScheduleEventData },
  schedule_canceled: { when: 'A schedule was cancelled.', data: ScheduleEventData },
  document_failed: { when: 'A document given at onboarding could not be fetched.', data: DocumentEventData },
  rent_due_soon: {
    when:
      'Rent falls due in reminder_days_before days (an operator setting; off by default) and is not yet paid. Once ' +
      'per tenancy and due date.',
    data: RentReminderEventData,
  },
  rent_overdue: {
    when:
      'Rent due 1 day ago, and again 7 days ago, is still not fully paid (reminders on). Once per tenancy, due date ' +
      'and days_after_due.',
    data: RentReminderEventData,
  },
  payout_paid: {
    when: 'The operator confirmed a payout run: this payout of a tenancy’s rent was sent to the landlord’s account.',
    data: PayoutEventData,
  },
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
