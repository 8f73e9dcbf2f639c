import type { Selectable } from 'kysely';
import { type Static, Type } from 'typebox';
import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { qb, rows } from '../platform/db/query-builder.ts';
import type { TenanciesTable, UsersTable } from '../platform/db/tables.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { EVENT_TENANT_FIELDS } from '../webhooks/event-data.ts';
import { type EventType, recordEvents } from '../webhooks/record-event.ts';
import { type PaymentRow, PaymentView, paymentView } from './view.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$' });

export const RefundEventView = Type.Object(
  {
    refund_id: Type.String(),
    amount: Money,
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    created_at: Timestamp,
    failure_code: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Why a failed refund failed, in the card processor’s words (refund_failed only).',
      }),
    ),
    failure_message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { description: 'The refund this event is about (payment_refunded and refund_failed only).' },
);

export const DisputeEventView = Type.Object(
  {
    status: Type.Union([Type.Literal('open'), Type.Literal('won'), Type.Literal('lost')], {
      description:
        'open: the cardholder disputes the payment (or its issuer asks about it) and its rent is held back from ' +
        'payouts; won: it ended in your favour; lost: the disputed amount went back to the cardholder.',
    }),
    amount: { ...Money, description: 'How much of the payment is disputed.' },
  },
  { description: 'The dispute this event is about (payment_disputed and payment_dispute_closed only).' },
);

/** Where the Integration API serves a payment's receipt (getPaymentReceipt). */
export const receiptPath = (paymentId: string) => `/api/third-party/payments/${paymentId}/receipt.pdf`;

export const PaymentEventData = Type.Object(
  {
    payment: Type.Object(
      {
        ...PaymentView.properties,
        receipt_url: Type.Optional(
          Type.String({
            description:
              'Once the payment has succeeded: the path of its receipt (a PDF) on the Integration API, ' +
              '`/api/third-party/payments/{payment_id}/receipt.pdf`, to fetch with your server token.',
          }),
        ),
      },
      { title: 'EventPayment' },
    ),
    ...EVENT_TENANT_FIELDS,
    refund: Type.Optional(RefundEventView),
    dispute: Type.Optional(DisputeEventView),
    action_required: Type.Optional(
      Type.Object(
        {
          reason: Type.Literal('authentication_required', {
            description:
              'The tenant’s bank wants them to authenticate this payment (Strong Customer Authentication).',
          }),
          confirm_by: Type.String({
            format: 'date',
            description:
              'The last day the tenant can confirm it, in any session you open for them; unconfirmed, it fails the day after (payment_failed).',
          }),
        },
        { description: 'What the tenant must do (payment_action_required only).' },
      ),
    ),
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

/** Whom a payment's event names: the integrator's user id, the email and the tenancy's payment reference. */
export type PaymentEventUser = Pick<Selectable<UsersTable>, 'external_id' | 'email'> &
  Pick<Selectable<TenanciesTable>, 'payment_reference'>;

/** What a payment event adds beside the payment, user_id, email and payment_reference: a refund, a retry date or a dispute. */
type PaymentEventExtra = Pick<PaymentEventData, 'refund' | 'retry_on' | 'dispute' | 'action_required'>;

/** A payment event's data: `{payment, user_id, email, payment_reference}`, plus `refund`, `retry_on` or `dispute`. */
export function paymentEventData(
  payment: PaymentRow,
  who: PaymentEventUser,
  extra: PaymentEventExtra = {},
): PaymentEventData {
  return {
    payment: {
      ...paymentView(payment),
      ...(payment.status === 'succeeded' ? { receipt_url: receiptPath(payment.id) } : {}),
    },
    user_id: Number(who.external_id),
    email: who.email,
    payment_reference: who.payment_reference,
    ...extra,
  };
}

/** One payment event to record: its type, the payment, and what it adds beside the four keys. */
export interface PaymentEventRecord {
  type: EventType;
  payment: PaymentRow;
  extra?: PaymentEventExtra;
  /** Its tenant as the caller has them already (a new payment's session); read otherwise. */
  who?: PaymentEventUser;
}

/** Records a payment's event, with `extra` beside its four keys. */
export async function recordPaymentEvent(
  tx: Queryable,
  clock: Clock,
  type: EventType,
  payment: PaymentRow,
  extra: PaymentEventExtra = {},
): Promise<void> {
  await recordPaymentEvents(tx, clock, [{ type, payment, extra }]);
}

/** Several payments' events: their tenants read in one statement, the events written in one more. */
export async function recordPaymentEvents(
  tx: Queryable,
  clock: Clock,
  records: readonly PaymentEventRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const unknown = [...new Set(records.flatMap((record) => (record.who ? [] : [record.payment.tenancy_id])))];
  const found =
    unknown.length === 0
      ? []
      : await rows(
          tx,
          qb
            .selectFrom('tenancies as t')
            .innerJoin('users as u', 'u.id', 't.user_id')
            .select(['t.id as tenancy_id', 'u.external_id', 'u.email', 't.payment_reference'])
            .where('t.id', 'in', unknown),
        );
  const byTenancy = new Map(found.map((who) => [who.tenancy_id, who]));
  await recordEvents(
    tx,
    clock,
    records.map(({ type, payment, extra, who }) => ({
      integratorId: payment.integrator_id,
      type,
      data: paymentEventData(payment, who ?? byTenancy.get(payment.tenancy_id)!, extra),
    })),
  );
}
