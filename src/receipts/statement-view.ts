/** The statement as JSON (the Integration API's `Accept: application/json`): the same figures as its PDF. */
import { type Static, Type } from 'typebox';
import { CalendarDate } from '../ledger/view.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';
import type { Statement } from './statement.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });
const Balance = Type.String({
  pattern: '^-?\\d+\\.\\d{2}$',
  description: 'What the tenant owes; negative when paid ahead.',
  examples: ['1200.00', '-50.00'],
});

export const StatementView = Type.Object(
  {
    payment_reference: Type.String(),
    currency: Type.Literal('GBP'),
    from: { ...CalendarDate, description: 'The first day of the period.' },
    to: { ...CalendarDate, description: 'The last day of the period; every figure is as of its end.' },
    generated_at: Timestamp,
    platform: Type.String({ description: 'Your integration’s name.' }),
    tenant: Type.String({ description: 'The tenant’s first and last name.' }),
    property: Type.String({ description: 'The tenancy’s address on one line.' }),
    payee: Type.String({ description: 'Whom the rent is paid to (the landlord’s account name).' }),
    opening_balance: { ...Balance, description: 'The balance at the end of the day before `from`.' },
    closing_balance: { ...Balance, description: 'The balance at the end of `to`.' },
    due_dates: Type.Array(
      Type.Object({
        date: CalendarDate,
        installment_number: Type.Union([Type.Integer(), Type.Null()]),
        rent: Money,
        paid: {
          ...Money,
          description: 'Paid towards it by the end of `to` (payments pay the oldest due date first).',
        },
        paid_in_full_on: Type.Union([CalendarDate, Type.Null()], {
          description: 'The day of the payment that paid it in full; null while it is not.',
        }),
      }),
      { description: 'Every due date in the period, in order.' },
    ),
    entries: Type.Array(
      Type.Object({
        date: CalendarDate,
        type: Type.Union([Type.Literal('rent_due'), Type.Literal('payment'), Type.Literal('refund')], {
          description:
            'rent_due adds to the balance; payment (its rent part, without the fee) subtracts; refund (its rent ' +
            'part, or what a lost dispute took back) adds back. Payouts to the landlord do not move the balance ' +
            'and are not listed.',
        }),
        amount: Money,
        payment_id: Type.Optional(Type.String({ description: 'payment and refund entries.' })),
        balance: { ...Balance, description: 'The balance after this entry.' },
      }),
      { description: 'What happened in the period, in date order (on one day: rent due first).' },
    ),
    totals: Type.Object({
      rent_due: Money,
      paid: { ...Money, description: 'The rent part of the payments in the period.' },
      refunded: { ...Money, description: 'The rent part of the refunds (and lost disputes) in the period.' },
    }),
    arrears: { ...Money, description: 'The closing balance when positive, else 0.00.' },
    days_overdue: Type.Integer({
      minimum: 0,
      description:
        'At the end of `to`: days since the oldest due date not fully paid; 0 when nothing is overdue.',
    }),
  },
  { title: 'RentStatement' },
);
export type StatementView = Static<typeof StatementView>;

export function statementView(statement: Statement): StatementView {
  return {
    payment_reference: statement.parties.payment_reference,
    currency: 'GBP',
    from: statement.from,
    to: statement.to,
    generated_at: statement.generated_at.toISOString(),
    platform: statement.parties.platform,
    tenant: statement.parties.tenant,
    property: statement.parties.property,
    payee: statement.parties.payee,
    opening_balance: formatPence(statement.opening_balance_pence),
    closing_balance: formatPence(statement.closing_balance_pence),
    due_dates: statement.due_dates.map((due) => ({
      date: due.date,
      installment_number: due.installment_number,
      rent: formatPence(due.rent_pence),
      paid: formatPence(due.paid_pence),
      paid_in_full_on: due.settled_on,
    })),
    entries: statement.entries.map((entry) => ({
      date: entry.date,
      type: entry.type,
      amount: formatPence(entry.amount_pence),
      ...(entry.payment_id ? { payment_id: entry.payment_id } : {}),
      balance: formatPence(entry.balance_pence),
    })),
    totals: {
      rent_due: formatPence(statement.totals.rent_due_pence),
      paid: formatPence(statement.totals.paid_pence),
      refunded: formatPence(statement.totals.refunded_pence),
    },
    arrears: formatPence(statement.arrears_pence),
    days_overdue: statement.days_overdue,
  };
}
