/** What the tenants pages say about API values, in words: pure, so it is tested without a browser. */

import { FREQUENCY_MONTHS } from '../../../src/shared/dates.ts';
import { longDate, moneyOf } from '../../../src/shared/display.ts';
import type { Frequency, ScheduleStatus } from '../../../src/shared/vocabulary.ts';
import type { DocumentKind, LedgerEntryType, TenancyLedger } from './types.ts';

/** "every month", "every 3 months", "every year". */
export function frequencyName(frequency: Frequency): string {
  const months = FREQUENCY_MONTHS[frequency];
  if (months === undefined) return frequency;
  if (months === 1) return 'every month';
  return months === 12 ? 'every year' : `every ${months} months`;
}

export const ENTRY_NAMES: Record<LedgerEntryType, string> = {
  rent_due: 'Rent due',
  payment: 'Payment',
  refund: 'Refund',
  payout: 'Paid out to the landlord',
};

export const SCHEDULE_STATUS_NAMES: Record<ScheduleStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  canceled: 'Canceled',
  completed: 'Completed',
};

export type ScheduleAction = 'pause' | 'resume' | 'cancel';

/** The moves a schedule's status allows, as the schedules service does. */
export function scheduleActions(status: ScheduleStatus): ScheduleAction[] {
  if (status === 'active') return ['pause', 'cancel'];
  if (status === 'paused') return ['resume', 'cancel'];
  return [];
}

const DOCUMENT_NAMES: Record<DocumentKind, string> = {
  agreement: 'Tenancy agreement',
  pii_front: 'Identity document (front)',
  pii_back: 'Identity document (back)',
  photo: 'Photo',
};

export function documentName(kind: DocumentKind): string {
  return DOCUMENT_NAMES[kind] ?? kind;
}

/** A KYC file (identity document, photo): only people with kyc.read see or open one. */
export function isKyc(kind: DocumentKind): boolean {
  return kind !== 'agreement';
}

/** A balance from the API as a number of pounds, for a chart's point ("-50.00" → -50). */
export function pounds(decimal: string): number {
  return Number(decimal);
}

/** A number of pounds as money ("£1,200.00"), for a chart's axis and table. */
export function poundsText(value: number): string {
  return moneyOf(value.toFixed(2));
}

const SHORT_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** The balance-over-time chart's data: one point per day of the series. */
export function balanceChart(series: TenancyLedger['balance_series']): {
  labels: string[];
  axisLabels: string[];
  values: number[];
} {
  return {
    labels: series.map((point) => longDate(point.date)),
    axisLabels: series.map((point) => SHORT_DATE.format(new Date(`${point.date}T00:00:00Z`))),
    values: series.map((point) => pounds(point.balance)),
  };
}

/** The chart's summary in words: where the balance started and where it is, and what that means. */
export function balanceSummary(ledger: Pick<TenancyLedger, 'balance_series' | 'as_of'>): string {
  const first = ledger.balance_series[0];
  const last = ledger.balance_series.at(-1);
  if (!first || !last) return 'Nothing has fallen due or been paid yet.';
  const highest = ledger.balance_series.reduce((top, point) =>
    pounds(point.balance) > pounds(top.balance) ? point : top,
  );
  const now = balanceWords(last.balance);
  return (
    `The balance was ${moneyOf(first.balance)} on ${longDate(first.date)} and is ${moneyOf(last.balance)} on ` +
    `${longDate(last.date)}: ${now}. Highest: ${moneyOf(highest.balance)} on ${longDate(highest.date)}.`
  );
}

/** What a balance means for the tenant. */
export function balanceWords(balance: string): string {
  const value = pounds(balance);
  if (value > 0) return `the tenant owes ${moneyOf(balance)}`;
  if (value < 0) return `the tenant has paid ${moneyOf(balance.slice(1))} ahead`;
  return 'nothing is owed';
}

/** What is owed today: "£1,200.00, 28 days overdue". */
export function owedText(owed: { arrears: string; days_overdue: number }): string {
  const overdue = owed.days_overdue === 1 ? '1 day overdue' : `${owed.days_overdue} days overdue`;
  return owed.days_overdue > 0 ? `${moneyOf(owed.arrears)}, ${overdue}` : moneyOf(owed.arrears);
}

/** The next due date: "£1,200.00 on 1 April 2026". */
export function nextDueText(next: { date: string; amount: string } | null): string {
  return next ? `${moneyOf(next.amount)} on ${longDate(next.date)}` : 'Nothing more falls due';
}
