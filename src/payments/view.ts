import type { Selectable } from 'kysely';
import { type Static, Type } from 'typebox';
import type { PaymentProcessorName } from '../platform/config/config.ts';
import { Col } from '../platform/db/checked-sql.ts';
import type { PaymentsTable } from '../platform/db/tables.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import type { NextAction } from '../processors/processor.ts';
import { formatPence } from '../shared/money.ts';
import { PAYMENT_METHODS, PAYMENT_STATUSES } from '../shared/vocabulary.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

/** The Payment: the same shape in the session query, webhooks and SDK results. */
export const PaymentView = Type.Object(
  {
    payment_id: Type.String(),
    status: Type.Enum(PAYMENT_STATUSES),
    pure_amount: Money,
    fee: Money,
    amount: Money,
    currency: Type.Literal('GBP'),
    method: Type.Enum(PAYMENT_METHODS),
    card: Nullable(
      Type.Object({
        brand: Type.String(),
        last4: Type.String(),
        exp_month: Type.Integer(),
        exp_year: Type.Integer(),
      }),
    ),
    reference: Type.String(),
    session_id: Type.String(),
    schedule_id: Nullable(Type.String()),
    installment_number: Nullable(Type.Integer()),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    processor: Type.Union([Type.Literal('sandbox'), Type.Literal('stripe')], {
      description: 'Which payment processor handled it: sandbox (the test processor) or stripe.',
    }),
    processor_reference: Nullable(
      Type.String({
        description:
          'The processor’s id for this payment (e.g. a Stripe PaymentIntent "pi_…"); null until the processor has one.',
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Payment' },
);
export type PaymentView = Static<typeof PaymentView>;

export const NextActionView = Type.Union([
  Type.Object({
    type: Type.Union([Type.Literal('three_ds'), Type.Literal('redirect'), Type.Literal('qr')]),
    /** three_ds: the challenge page; redirect: the provider's page; qr: what the QR code encodes. */
    url: Type.String(),
    /** qr only: an image (SVG) of the code to show. */
    image_url: Type.Optional(Type.String()),
  }),
  Type.Object({
    type: Type.Literal('stripe_next_action'),
    /** The PaymentIntent's client secret, for Stripe.js to complete the action (3DS, a QR code) in the page. */
    client_secret: Type.String(),
  }),
]);

/** The payments columns the database types loosely (free text, JSON), as the payments service writes them. */
export interface PaymentRowNarrowing {
  method: PaymentView['method'];
  next_action: NextAction | null;
}

/** A payments row: the generated table type, with the loosely typed columns narrowed. */
export type PaymentRow = Omit<Selectable<PaymentsTable>, keyof PaymentRowNarrowing> & PaymentRowNarrowing;

/** A whole payments row (`RETURNING *`) for hand-written SQL: its type is a PaymentRow. */
export const PAYMENT_ROW = Col.row({
  id: Col.text,
  integrator_id: Col.text,
  session_id: Col.text,
  user_id: Col.text,
  tenancy_id: Col.text,
  status: Type.Enum(PAYMENT_STATUSES),
  pure_amount_pence: Col.int,
  fee_pence: Col.int,
  amount_pence: Col.int,
  refunded_pence: Col.int,
  currency: Type.Literal('GBP'),
  method: Type.Enum(PAYMENT_METHODS),
  card_brand: Col.nullable(Col.text),
  card_last4: Col.nullable(Col.text),
  card_exp_month: Col.nullable(Col.int),
  card_exp_year: Col.nullable(Col.int),
  reference: Col.text,
  schedule_id: Col.nullable(Col.text),
  installment_number: Col.nullable(Col.int),
  failure_code: Col.nullable(Col.text),
  failure_message: Col.nullable(Col.text),
  idempotency_key: Col.text,
  processor: Col.text,
  processor_token: Col.nullable(Col.text),
  processor_payment_id: Col.nullable(Col.text),
  next_action: Col.nullable(NextActionView),
  created_at: Col.date,
  updated_at: Col.date,
  saved_card_id: Col.nullable(Col.text),
  funds_available_at: Col.nullable(Col.date),
  dispute_status: Col.nullable(Type.Enum(['open', 'won', 'lost'])),
  dispute_lost_at: Col.nullable(Col.date),
  dispute_amount_pence: Col.nullable(Col.int),
  processor_checked_at: Col.nullable(Col.date),
  action_required_at: Col.nullable(Col.date),
});

export function paymentView(row: PaymentRow): PaymentView {
  return {
    payment_id: row.id,
    status: row.status,
    pure_amount: formatPence(Number(row.pure_amount_pence)),
    fee: formatPence(Number(row.fee_pence)),
    amount: formatPence(Number(row.amount_pence)),
    currency: 'GBP',
    method: row.method,
    card:
      row.card_brand && row.card_last4
        ? {
            brand: row.card_brand,
            last4: row.card_last4,
            exp_month: Number(row.card_exp_month),
            exp_year: Number(row.card_exp_year),
          }
        : null,
    reference: row.reference,
    session_id: row.session_id,
    schedule_id: row.schedule_id,
    installment_number: row.installment_number,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    processor: row.processor as PaymentProcessorName,
    processor_reference: row.processor_payment_id,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
