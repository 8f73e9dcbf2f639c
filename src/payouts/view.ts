import type { Selectable } from 'kysely';
import { type Static, Type } from 'typebox';
import type { PayoutRunsTable, PayoutsTable, TenanciesTable } from '../platform/db/tables.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

export const PAYOUT_STATUSES = ['created', 'paid', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const PAYOUT_RUN_STATUSES = ['created', 'confirmed', 'canceled'] as const;
export type PayoutRunStatus = (typeof PAYOUT_RUN_STATUSES)[number];

/** A payout as its views show it: its payouts row (but created_at), its tenancy's reference, the payments it pays. */
export type PayoutRow = Omit<Selectable<PayoutsTable>, 'created_at'> &
  Pick<Selectable<TenanciesTable>, 'payment_reference'> & {
    /** The payments whose rent it carries (its 'payment' lines), in id order. */
    payment_ids: string[];
  };

/** A payout run as its views show it: its payout_runs row (but updated_at), the day read as text. */
export type PayoutRunRow = Omit<Selectable<PayoutRunsTable>, 'updated_at' | 'as_of' | 'created_by'> & {
  /** YYYY-MM-DD (`as_of::text`). */
  as_of: string;
  /** Who made it, as the audit log records an actor (`kind`, a person's `user_id`, …); null: not recorded. */
  created_by: Record<string, string | null> | null;
};

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
