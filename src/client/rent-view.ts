import { Type } from 'typebox';
import { paidAhead, type RentPosition } from '../ledger/position.ts';
import type { TenancyLedger } from '../ledger/service.ts';
import { formatPence } from '../shared/money.ts';

/** How many due dates after today `unpaid` lists (all the overdue ones are always listed). */
const UPCOMING_LISTED = 12;

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });
const Day = Type.String({ format: 'date' });

export const TenancyLedgerView = Type.Object(
  {
    as_of: { ...Day, description: 'Today, as the ledger counts days (UTC).' },
    arrears: Type.String({ description: 'Rent due by today and not paid, e.g. "2400.00".' }),
    days_overdue: Type.Integer({
      description: 'Days since the oldest due date not fully paid.',
    }),
    next_due: Type.Union([Type.Object({ date: Type.String(), amount: Type.String() }), Type.Null()], {
      description:
        'The first due date after today and what is still to pay for it (its rent less any credit from paying ' +
        'ahead); null when none is left or it is paid already.',
    }),
    unpaid: Type.Array(
      Type.Object({
        date: Day,
        amount: { ...Money, description: 'What is still to pay for it.' },
        rent: { ...Money, description: 'What fell due on it.' },
        installment_number: Type.Union([Type.Integer(), Type.Null()]),
      }),
      {
        description:
          'Due dates not paid in full, oldest first: every one on or before today (overdue, or due today), then ' +
          `up to ${UPCOMING_LISTED} after today. Payments pay the oldest due date first, so an amount paid now ` +
          'pays these in this order.',
      },
    ),
    paid_ahead: Type.Union(
      [
        Type.Object({
          date: { ...Day, description: 'The latest due date after today already paid in full.' },
          rent: Money,
          paid_on: { ...Day, description: 'The day of the payment that paid it in full.' },
        }),
        Type.Null(),
      ],
      { description: 'Rent paid ahead of its due date; null when the next due date is not paid in full.' },
    ),
    credit: {
      ...Money,
      description: 'Paid beyond the tenancy’s last due date (nothing is left for it to pay).',
    },
  },
  { description: 'What the tenant owes and has paid, from the tenancy’s rent ledger.' },
);

export const AppliedToView = Type.Array(
  Type.Object({
    due_date: Type.Union([Day, Type.Null()], {
      description: 'The due date it paid towards; null: credit beyond the tenancy’s last due date.',
    }),
    amount: { ...Money, description: 'What it paid towards that due date.' },
    rent: Type.Union([Money, Type.Null()], { description: 'What fell due on that date.' }),
  }),
  {
    description:
      'What the payment that completed this session paid, oldest due date first (less any refund of it); empty ' +
      'while the session is unpaid.',
  },
);

/** The page's view of where the tenant stands: the ledger's totals and, due date by due date, what is unpaid. */
export function tenancyLedgerView(ledger: TenancyLedger | undefined, position: RentPosition | undefined) {
  const balance = ledger?.entries.at(-1)?.balance_pence ?? 0;
  const nextToPay = ledger?.next_due ? ledger.next_due.amount_pence - Math.max(0, -balance) : 0;
  const asOf = position?.as_of ?? ledger?.as_of ?? '';
  const open = (position?.dues ?? []).filter((due) => due.settled_on === null);
  const overdue = open.filter((due) => due.date <= asOf);
  const upcoming = open.filter((due) => due.date > asOf).slice(0, UPCOMING_LISTED);
  const ahead = position ? paidAhead(position) : null;
  return {
    as_of: asOf,
    arrears: formatPence(ledger?.arrears_pence ?? 0),
    days_overdue: ledger?.days_overdue ?? 0,
    next_due:
      ledger?.next_due && nextToPay > 0
        ? { date: ledger.next_due.date, amount: formatPence(nextToPay) }
        : null,
    unpaid: [...overdue, ...upcoming].map((due) => ({
      date: due.date,
      amount: formatPence(due.rent_pence - due.paid_pence),
      rent: formatPence(due.rent_pence),
      installment_number: due.installment_number,
    })),
    paid_ahead:
      ahead?.settled_on != null
        ? { date: ahead.date, rent: formatPence(ahead.rent_pence), paid_on: ahead.settled_on }
        : null,
    credit: formatPence(position?.credit_pence ?? 0),
  };
}

/** What one payment paid, due date by due date. */
export function appliedToView(position: RentPosition | undefined, paymentId: string | undefined) {
  if (!position || !paymentId) return [];
  const rentOf = new Map(position.dues.map((due) => [due.date, due.rent_pence]));
  return (position.applied.get(paymentId) ?? []).map((part) => {
    const rent = part.due_date === null ? undefined : rentOf.get(part.due_date);
    return {
      due_date: part.due_date,
      amount: formatPence(part.pence),
      rent: rent === undefined ? null : formatPence(rent),
    };
  });
}
