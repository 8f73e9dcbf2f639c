/**
 * A tenancy's ledger as a pure function of what fell due, what was paid and refunded, and what was paid out.
 *
 * The balance runs in date order: a due date adds its rent, a succeeded payment subtracts its pure amount (the rent
 * part, not the fee), a refund adds back its rent part, and a payout to the landlord leaves it alone. Arrears are
 * the balance when it is positive. Payments cover due dates oldest first: the first due date not fully covered is
 * the one the tenant is overdue since.
 */
import type { RentDue } from './due-dates.ts';

export const LEDGER_ENTRY_TYPES = ['rent_due', 'payment', 'refund', 'payout'] as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

export interface LedgerPayment {
  payment_id: string;
  /** The UTC day it was made. */
  date: string;
  pure_amount_pence: number;
  /** Its succeeded refunds in the order they were made, fee included (as refunded). */
  refunds: readonly { date: string; amount_pence: number }[];
}

export interface LedgerPayout {
  payout_id: string;
  date: string;
  amount_pence: number;
}

export interface LedgerEntry {
  date: string;
  type: LedgerEntryType;
  /** Always positive: the type says which way it moves the balance. */
  amount_pence: number;
  payment_id?: string;
  payout_id?: string;
  /** What the tenant owes after this entry; negative when paid ahead. */
  balance_pence: number;
}

export interface Ledger {
  entries: LedgerEntry[];
  arrears_pence: number;
  days_overdue: number;
  next_due: RentDue | null;
}

const DAY_MS = 86_400_000;

/** Whole days from one calendar date to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/**
 * The rent part of each refund of a payment: refunds give the rent back first and the fee last, so the k-th
 * refund's rent part is what it adds to the refunded total up to the pure amount.
 */
export function refundRentParts(purePence: number, refundsPence: readonly number[]): number[] {
  let refunded = 0;
  return refundsPence.map((amount) => {
    const before = Math.min(purePence, refunded);
    refunded += amount;
    return Math.min(purePence, refunded) - before;
  });
}

/** A payment's refunds with the rent part of each (see refundRentParts). */
function refundsWithRentParts(payment: LedgerPayment): { date: string; rent_pence: number }[] {
  const parts = refundRentParts(
    payment.pure_amount_pence,
    payment.refunds.map((r) => r.amount_pence),
  );
  return payment.refunds.map((refund, i) => ({ date: refund.date, rent_pence: parts[i] ?? 0 }));
}

/** What the tenant has paid towards rent by a date: payments' pure amounts less refunds' rent parts. */
export function paidThrough(payments: readonly LedgerPayment[], asOf: string): number {
  let paid = 0;
  for (const payment of payments) {
    if (payment.date > asOf) continue;
    paid += payment.pure_amount_pence;
    for (const refund of refundsWithRentParts(payment)) if (refund.date <= asOf) paid -= refund.rent_pence;
  }
  return paid;
}

/** The first due date that `paidPence`, spent on the oldest due dates first, does not fully cover. */
export function firstUncovered(dues: readonly RentDue[], paidPence: number): RentDue | undefined {
  let left = paidPence;
  for (const due of dues) {
    if (left < due.amount_pence) return due;
    left -= due.amount_pence;
  }
  return undefined;
}

/**
 * Arrears and days overdue as of a day, from the tenancy's due dates (those after `asOf` are left out) and what the
 * tenant has paid towards rent by then (paidThrough): what is owed beyond what was paid, and the days since the
 * oldest due date that payments, spent on the oldest first, do not fully cover. Rent due on `asOf` is not overdue yet.
 */
export function arrearsAsOf(
  dues: readonly RentDue[],
  paidPence: number,
  asOf: string,
): { arrears_pence: number; days_overdue: number } {
  const dueSoFar = dues.filter((due) => due.date <= asOf);
  const owed = dueSoFar.reduce((sum, due) => sum + due.amount_pence, 0) - paidPence;
  const uncovered = firstUncovered(dueSoFar, paidPence);
  return {
    arrears_pence: Math.max(0, owed),
    days_overdue: uncovered ? daysBetween(uncovered.date, asOf) : 0,
  };
}

const ORDER: Record<LedgerEntryType, number> = { rent_due: 0, payment: 1, refund: 2, payout: 3 };

/**
 * The ledger as of a day: `dues` are the due dates on or before it, `next` the first after it; payments, refunds
 * and payouts after `asOf` are left out.
 */
export function buildLedger(
  dues: readonly RentDue[],
  next: RentDue | null,
  payments: readonly LedgerPayment[],
  payouts: readonly LedgerPayout[],
  asOf: string,
): Ledger {
  const items: (Omit<LedgerEntry, 'balance_pence'> & { delta: number; key: string })[] = [];
  for (const due of dues) {
    if (due.date > asOf) continue;
    items.push({
      date: due.date,
      type: 'rent_due',
      amount_pence: due.amount_pence,
      delta: due.amount_pence,
      key: '',
    });
  }
  for (const payment of payments) {
    if (payment.date > asOf) continue;
    const id = payment.payment_id;
    items.push({
      date: payment.date,
      type: 'payment',
      amount_pence: payment.pure_amount_pence,
      payment_id: id,
      delta: -payment.pure_amount_pence,
      key: id,
    });
    refundsWithRentParts(payment).forEach((refund, i) => {
      // A refund of the fee alone gives no rent back: it has no place in the rent ledger.
      if (refund.date > asOf || refund.rent_pence === 0) return;
      items.push({
        date: refund.date,
        type: 'refund',
        amount_pence: refund.rent_pence,
        payment_id: id,
        delta: refund.rent_pence,
        key: `${id}:${i}`,
      });
    });
  }
  for (const payout of payouts) {
    if (payout.date > asOf) continue;
    items.push({
      date: payout.date,
      type: 'payout',
      amount_pence: payout.amount_pence,
      payout_id: payout.payout_id,
      delta: 0,
      key: payout.payout_id,
    });
  }
  // Dates are YYYY-MM-DD: compared as strings (localeCompare would cost a locale lookup per comparison).
  items.sort((a, b) => compare(a.date, b.date) || ORDER[a.type] - ORDER[b.type] || compare(a.key, b.key));
  let balance = 0;
  const entries = items.map((item): LedgerEntry => {
    balance += item.delta;
    const entry: LedgerEntry = {
      date: item.date,
      type: item.type,
      amount_pence: item.amount_pence,
      balance_pence: balance,
    };
    if (item.payment_id !== undefined) entry.payment_id = item.payment_id;
    if (item.payout_id !== undefined) entry.payout_id = item.payout_id;
    return entry;
  });
  // The balance is what fell due less what was paid towards rent: the same arrears as the set-wise overview's.
  return { entries, ...arrearsAsOf(dues, paidThrough(payments, asOf), asOf), next_due: next };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
