/**
 * Where a tenant stands, due date by due date: each payment's rent part (less what refunds gave back) pays the
 * oldest due dates first, so every due date is paid, part paid or unpaid, and every payment paid known due dates.
 * Pure: the ledger's input in, the position out.
 */
import { allocateOldestFirst } from '../shared/rent-allocation.ts';
import { type LedgerPayment, refundRentParts } from './balance.ts';
import type { RentDue } from './due-dates.ts';

export interface DuePosition {
  date: string;
  installment_number: number | null;
  rent_pence: number;
  paid_pence: number;
  /** The day of the payment that paid it in full; null while it is not. */
  settled_on: string | null;
}

/** What one payment paid: a due date's part, or (date null) credit beyond the tenancy's last due date. */
export interface AppliedPart {
  due_date: string | null;
  pence: number;
}

export interface RentPosition {
  as_of: string;
  /** Every due date of the tenancy, in order. */
  dues: DuePosition[];
  /** Paid beyond every due date of the tenancy. */
  credit_pence: number;
  /** Per payment id: what it paid, oldest due date first. */
  applied: Map<string, AppliedPart[]>;
}

/** What a payment has paid towards rent as of a day: its pure amount less the rent part of its refunds by then. */
function netRentPence(payment: LedgerPayment, asOf: string): number {
  const parts = refundRentParts(
    payment.pure_amount_pence,
    payment.refunds.map((refund) => refund.amount_pence),
  );
  let net = payment.pure_amount_pence;
  payment.refunds.forEach((refund, i) => {
    if (refund.date <= asOf) net -= parts[i] ?? 0;
  });
  return net;
}

/**
 * The position as of a day: `dues` are every due date of the tenancy (also those after `asOf`, which paying ahead
 * covers), `payments` its succeeded payments in the order they were made; those after `asOf` are left out.
 */
export function rentPosition(
  dues: readonly RentDue[],
  payments: readonly LedgerPayment[],
  asOf: string,
): RentPosition {
  const positions: DuePosition[] = dues.map((due) => ({
    date: due.date,
    installment_number: due.installment_number,
    rent_pence: due.amount_pence,
    paid_pence: 0,
    settled_on: null,
  }));
  const applied = new Map<string, AppliedPart[]>();
  let credit = 0;
  let first = 0;
  for (const payment of payments) {
    if (payment.date > asOf) continue;
    while (first < positions.length && positions[first]!.settled_on !== null) first++;
    const open = positions.slice(first);
    const { parts, left_pence } = allocateOldestFirst(
      open.map((due) => ({ date: due.date, amount_pence: due.rent_pence - due.paid_pence })),
      netRentPence(payment, asOf),
    );
    parts.forEach((part, i) => {
      const due = open[i]!;
      due.paid_pence += part.pence;
      if (part.settles) due.settled_on = payment.date;
    });
    credit += left_pence;
    const paid: AppliedPart[] = parts.map((part) => ({ due_date: part.date, pence: part.pence }));
    if (left_pence > 0) paid.push({ due_date: null, pence: left_pence });
    applied.set(payment.payment_id, paid);
  }
  return { as_of: asOf, dues: positions, credit_pence: credit, applied };
}

/** The oldest due date not paid in full; null when every one is. */
export function firstUnpaid(position: Pick<RentPosition, 'dues'>): DuePosition | null {
  return position.dues.find((due) => due.settled_on === null) ?? null;
}

/** The last due date after `as_of` already paid in full (paying ahead), or null. */
export function paidAhead(position: RentPosition): DuePosition | null {
  let found: DuePosition | null = null;
  for (const due of position.dues) {
    if (due.date <= position.as_of) continue;
    if (due.settled_on === null) break;
    found = due;
  }
  return found;
}
