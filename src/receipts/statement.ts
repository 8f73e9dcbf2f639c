/**
 * A tenancy's rent statement over a period: its due dates and what paid them, its payments and refunds with the
 * running balance (payouts to the landlord leave the balance alone and are not listed), the totals, and the arrears
 * at the end. Every figure is the ledger's, as of the period's last day.
 */
import type { LedgerEntry } from '../ledger/balance.ts';
import type { DuePosition, RentPosition } from '../ledger/position.ts';
import type { TenancyLedger } from '../ledger/service.ts';
import type { TenancyParties } from './parties.ts';

export interface Period {
  from: string;
  to: string;
}

export interface Statement extends Period {
  parties: TenancyParties;
  generated_at: Date;
  opening_balance_pence: number;
  closing_balance_pence: number;
  /** The due dates in the period, each with what was paid towards it by the period's end. */
  due_dates: DuePosition[];
  /** Rent due, payments and refunds in the period, in date order, each with the balance after it. */
  entries: (LedgerEntry & { type: 'rent_due' | 'payment' | 'refund' })[];
  totals: { rent_due_pence: number; paid_pence: number; refunded_pence: number };
  arrears_pence: number;
  days_overdue: number;
}

const sum = (entries: readonly LedgerEntry[], type: LedgerEntry['type']) =>
  entries.filter((entry) => entry.type === type).reduce((total, entry) => total + entry.amount_pence, 0);

/** The statement of a period from the tenancy's ledger and position, both as of the period's last day. */
export function statementOf(
  parties: TenancyParties,
  period: Period,
  standing: { ledger: TenancyLedger; position: RentPosition },
  generatedAt: Date,
): Statement {
  const { ledger, position } = standing;
  const before = ledger.entries.filter((entry) => entry.date < period.from);
  const opening = before.at(-1)?.balance_pence ?? 0;
  const entries = ledger.entries.filter(
    (entry): entry is Statement['entries'][number] => entry.date >= period.from && entry.type !== 'payout',
  );
  return {
    ...period,
    parties,
    generated_at: generatedAt,
    opening_balance_pence: opening,
    closing_balance_pence: entries.at(-1)?.balance_pence ?? opening,
    due_dates: position.dues.filter((due) => due.date >= period.from && due.date <= period.to),
    entries,
    totals: {
      rent_due_pence: sum(entries, 'rent_due'),
      paid_pence: sum(entries, 'payment'),
      refunded_pence: sum(entries, 'refund'),
    },
    arrears_pence: ledger.arrears_pence,
    days_overdue: ledger.days_overdue,
  };
}
