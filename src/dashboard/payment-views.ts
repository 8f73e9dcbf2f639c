import { type Static, Type } from 'typebox';
import type { ListedPayment } from '../payments/list.ts';
import type { RefundPreview } from '../payments/refund-preview.ts';
import { PaymentView, paymentView } from '../payments/view.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

/** A payment as the dashboard lists it: the Payment, what was refunded, and whose it is. */
export const DashboardPayment = Type.Object(
  {
    ...PaymentView.properties,
    refunded: { ...Money, description: 'Refunded so far (succeeded refunds), fee included.' },
    user_id: Type.Integer({ description: 'The platform’s user_id of the tenant who paid.' }),
    email: Type.String({ description: 'The tenant’s email.' }),
    name: Type.String({ description: 'The tenant’s first and last name.' }),
    payment_reference: Type.String({ description: 'The tenancy the payment is for.' }),
  },
  { title: 'DashboardPayment' },
);
export type DashboardPayment = Static<typeof DashboardPayment>;

export function dashboardPaymentView(row: ListedPayment): DashboardPayment {
  return {
    ...paymentView(row),
    refunded: formatPence(Number(row.refunded_pence)),
    user_id: Number(row.user_external_id),
    email: row.user_email,
    name: `${row.user_first_name} ${row.user_last_name}`,
    payment_reference: row.tenancy_reference,
  };
}

/** The CSV export's columns, in order; each row is a DashboardPayment's fields. */
export const EXPORT_COLUMNS = [
  'payment_id',
  'created_at',
  'status',
  'method',
  'card_brand',
  'card_last4',
  'amount',
  'pure_amount',
  'fee',
  'refunded',
  'currency',
  'reference',
  'payment_reference',
  'user_id',
  'email',
  'name',
  'failure_code',
  'processor_reference',
] as const;

export function exportCells(row: ListedPayment): string[] {
  const p = dashboardPaymentView(row);
  return [
    p.payment_id,
    p.created_at,
    p.status,
    p.method,
    p.card?.brand ?? '',
    p.card?.last4 ?? '',
    p.amount,
    p.pure_amount,
    p.fee,
    p.refunded,
    p.currency,
    p.reference,
    p.payment_reference,
    String(p.user_id),
    p.email,
    p.name,
    p.failure_code ?? '',
    p.processor_reference ?? '',
  ];
}

export const RefundPreviewView = Type.Object(
  {
    payment_id: Type.String(),
    amount: {
      ...Money,
      description: 'What the refund takes back: the amount asked for, or everything left.',
    },
    rent: {
      ...Money,
      description: 'Its rent part: refunds give the rent back first, then the fee (after earlier refunds).',
    },
    fee: { ...Money, description: 'Its fee part.' },
    refundable: { ...Money, description: 'Left to refund before it (neither refunded nor being refunded).' },
    refundable_after: { ...Money, description: 'Left to refund after it.' },
    landlord: Type.Object(
      {
        loses: {
          ...Money,
          description:
            'Rent the landlord does not get, or gives back: the refund’s rent part (fees are never paid out).',
        },
        effect: Type.Enum(['less_payable', 'after_unconfirmed_run', 'carried_negative'], {
          description:
            'less_payable: the rent is not paid out yet, the tenancy’s next payout is that much less; ' +
            'after_unconfirmed_run: the rent is in a run not yet confirmed, which still pays it, and the next payout ' +
            'after it is that much less; carried_negative: the rent was paid out, and that much is carried as a ' +
            'negative into the tenancy’s next payout.',
        }),
        payout_id: Type.Union([Type.String(), Type.Null()], {
          description: 'The payout carrying the payment’s rent, if one does.',
        }),
        payout_run_id: Type.Union([Type.String(), Type.Null()]),
        summary: Type.String({ description: 'The same, in a sentence for the confirmation.' }),
      },
      { description: 'What the refund does to the landlord’s payouts.' },
    ),
    refused: Type.Union(
      [
        Type.Object({
          error: Type.Literal('paid_out'),
          detail: Type.String(),
        }),
        Type.Null(),
      ],
      {
        description:
          'Why the refund would be refused although the amount is right: `paid_out`, the rent is in a confirmed ' +
          'payout and only the operator can refund it now. null: the refund can be made.',
      },
    ),
  },
  { title: 'RefundPreview' },
);

export function refundPreviewView(preview: RefundPreview): Static<typeof RefundPreviewView> {
  return {
    payment_id: preview.payment.id,
    amount: formatPence(preview.refund_pence),
    rent: formatPence(preview.rent_pence),
    fee: formatPence(preview.fee_pence),
    refundable: formatPence(preview.remaining_pence),
    refundable_after: formatPence(preview.left_after_pence),
    landlord: {
      loses: formatPence(preview.effect.landlord_loses_pence),
      effect: preview.effect.effect,
      payout_id: preview.payout.payout_id,
      payout_run_id: preview.payout.payout_run_id,
      summary: preview.effect.explanation,
    },
    refused: preview.refusal ? { error: 'paid_out', detail: preview.refusal.detail } : null,
  };
}

export const TIMELINE_ENTRY_TYPES = [
  'created',
  'action_required',
  'succeeded',
  'failed',
  'canceled',
  'refund',
  'dispute_opened',
  'dispute_closed',
  'funds_available',
  'in_payout_run',
  'paid_out',
] as const;

export const TimelineEntry = Type.Object(
  {
    at: Timestamp,
    type: Type.Enum(TIMELINE_ENTRY_TYPES, {
      description:
        'created; action_required: it waited for the tenant (3-D Secure, an APM’s page or QR code, or a recurring ' +
        'charge their bank wanted them to authenticate); succeeded, failed, canceled: its outcome; refund: a ' +
        'refund asked for (its status says how it ended); dispute_opened, dispute_closed; funds_available: its ' +
        'funds can be paid out to the landlord (a future time when not yet); in_payout_run: its rent joined a ' +
        'payout run; paid_out: that run was confirmed.',
    }),
    summary: Type.String({ description: 'A sentence for the page.' }),
    amount: Type.Optional(Money),
    status: Type.Optional(
      Type.String({ description: 'refund: pending, succeeded or failed; disputes: their status.' }),
    ),
    refund_id: Type.Optional(Type.String()),
    payout_id: Type.Optional(Type.String()),
    payout_run_id: Type.Optional(Type.String()),
    event_id: Type.Optional(Type.String({ description: 'The event it was announced by, when one was.' })),
  },
  { title: 'PaymentTimelineEntry' },
);
export type TimelineEntry = Static<typeof TimelineEntry>;
