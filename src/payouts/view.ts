import { type Static, Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

export const PAYOUT_STATUSES = ['created', 'paid', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const PAYOUT_RUN_STATUSES = ['created', 'confirmed', 'canceled'] as const;
export type PayoutRunStatus = (typeof PAYOUT_RUN_STATUSES)[number];

export interface PayoutRow {
  id: string;
  payout_run_id: string;
  integrator_id: string;
  tenancy_id: string;
  payment_reference: string;
  status: PayoutStatus;
  sort_code: string;
  account_number: string;
  account_name: string;
  reference: string;
  amount_pence: number;
  paid_at: Date | null;
  payment_ids: string[];
}

export interface PayoutRunRow {
  id: string;
  status: PayoutRunStatus;
  as_of: string;
  total_pence: number;
  created_at: Date;
  confirmed_at: Date | null;
  canceled_at: Date | null;
}

export const PayoutView = Type.Object(
  {
    payout_id: Type.String(),
    payout_run_id: Type.String(),
    status: Type.Union([Type.Literal('created'), Type.Literal('paid'), Type.Literal('canceled')], {
      description:
        'created: in a run not yet confirmed; paid: its run was confirmed; canceled: its run was canceled.',
    }),
    payment_reference: Type.String({ description: 'The tenancy it pays out the rent of.' }),
    sort_code: Type.String({ description: 'The landlord’s sort code, 6 digits.' }),
    account_number: Type.String({ description: 'The landlord’s account number, 8 digits.' }),
    account_name: Type.String(),
    amount: {
      ...Money,
      description:
        'Rent paid out: payments’ rent less the rent parts of refunds and lost disputes not yet deducted.',
    },
    payment_ids: Type.Array(Type.String(), { description: 'The payments whose rent this payout carries.' }),
    paid_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'Payout' },
);
export type PayoutView = Static<typeof PayoutView>;

export const PayoutEventData = Type.Object(
  { payout: PayoutView, payment_reference: Type.String({ description: 'The tenancy.' }) },
  { title: 'PayoutEventData' },
);

export const PayoutRunView = Type.Object(
  {
    payout_run_id: Type.String(),
    status: Type.Union([Type.Literal('created'), Type.Literal('confirmed'), Type.Literal('canceled')]),
    as_of: Type.String({
      format: 'date',
      description:
        'Payments, refunds and lost disputes on or before this day count; a payment once its funds are available ' +
        'by this day.',
    }),
    total: Money,
    items: Type.Array(PayoutView),
    created_at: Timestamp,
    confirmed_at: Type.Union([Timestamp, Type.Null()]),
    canceled_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'PayoutRun' },
);
export type PayoutRunView = Static<typeof PayoutRunView>;

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

export function payoutView(row: PayoutRow): PayoutView {
  return {
    payout_id: row.id,
    payout_run_id: row.payout_run_id,
    status: row.status,
    payment_reference: row.payment_reference,
    sort_code: row.sort_code,
    account_number: row.account_number,
    account_name: row.account_name,
    amount: formatPence(Number(row.amount_pence)),
    payment_ids: row.payment_ids,
    paid_at: iso(row.paid_at),
  };
}

export function payoutRunView(run: PayoutRunRow, items: PayoutRow[]): PayoutRunView {
  return {
    payout_run_id: run.id,
    status: run.status,
    as_of: run.as_of,
    total: formatPence(Number(run.total_pence)),
    items: items.map(payoutView),
    created_at: iso(run.created_at)!,
    confirmed_at: iso(run.confirmed_at),
    canceled_at: iso(run.canceled_at),
  };
}
