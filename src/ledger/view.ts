import { type Static, Type } from 'typebox';
import { formatPence } from '../shared/money.ts';
import { LEDGER_ENTRY_TYPES } from './balance.ts';
import type { TenancyLedger } from './service.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });
const SignedMoney = Type.String({
  pattern: '^-?\\d+\\.\\d{2}$',
  description: 'What the tenant owes; negative when paid ahead.',
  examples: ['0.00', '1200.00', '-50.00'],
});
export const CalendarDate = Type.String({ format: 'date', description: 'YYYY-MM-DD (a UTC calendar day).' });

/** A tenancy's ledger: the same shape wherever it is shown (Integration API, dashboard). */
export const LedgerView = Type.Object(
  {
    payment_reference: Type.String(),
    currency: Type.Literal('GBP'),
    as_of: CalendarDate,
    entries: Type.Array(
      Type.Object({
        date: CalendarDate,
        type: Type.Enum(LEDGER_ENTRY_TYPES, {
          description:
            'rent_due: rent fell due (adds to the balance); payment: a succeeded payment, its rent part without ' +
            'the fee (subtracts); refund: the rent part of a refund, or of what a lost dispute took back (adds back); payout: rent paid out to the ' +
            'landlord (leaves the balance alone).',
        }),
        amount: { ...Money, description: 'Always positive; the type says which way it moves the balance.' },
        payment_id: Type.Optional(Type.String({ description: 'payment and refund entries.' })),
        payout_id: Type.Optional(Type.String({ description: 'payout entries.' })),
        balance: {
          ...SignedMoney,
          description: 'What the tenant owes after this entry; negative when paid ahead.',
        },
      }),
      { description: 'Everything up to and including as_of, in date order (on one day: rent due first).' },
    ),
    arrears: { ...Money, description: 'The balance at as_of when positive, else 0.00.' },
    next_due: Type.Union([Type.Object({ date: CalendarDate, amount: Money }), Type.Null()], {
      description: 'The first due date after as_of; null when the tenancy has no more.',
    }),
    days_overdue: Type.Integer({
      minimum: 0,
      description:
        'Days from the oldest due date not fully paid (payments pay the oldest due dates first) to as_of; 0 when ' +
        'nothing is overdue.',
    }),
  },
  { title: 'Ledger' },
);
export type LedgerView = Static<typeof LedgerView>;

export function ledgerView(ledger: TenancyLedger): LedgerView {
  return {
    payment_reference: ledger.payment_reference,
    currency: 'GBP',
    as_of: ledger.as_of,
    entries: ledger.entries.map((entry) => {
      const view: LedgerView['entries'][number] = {
        date: entry.date,
        type: entry.type,
        amount: formatPence(entry.amount_pence),
        balance: formatPence(entry.balance_pence),
      };
      if (entry.payment_id) view.payment_id = entry.payment_id;
      if (entry.payout_id) view.payout_id = entry.payout_id;
      return view;
    }),
    arrears: formatPence(ledger.arrears_pence),
    next_due: ledger.next_due
      ? { date: ledger.next_due.date, amount: formatPence(ledger.next_due.amount_pence) }
      : null,
    days_overdue: ledger.days_overdue,
  };
}

/** The balance over time, for a chart: one point per day with entries, and as_of. */
export const BalanceSeries = Type.Array(Type.Object({ date: CalendarDate, balance: SignedMoney }), {
  description:
    'The balance at the end of each day that has entries, in date order, then at as_of (a step chart: the balance ' +
    'holds from one point to the next). Empty when nothing has fallen due or been paid yet.',
});

export function balanceSeries(ledger: TenancyLedger): Static<typeof BalanceSeries> {
  const points: { date: string; balance_pence: number }[] = [];
  for (const entry of ledger.entries) {
    const last = points.at(-1);
    if (last?.date === entry.date) last.balance_pence = entry.balance_pence;
    else points.push({ date: entry.date, balance_pence: entry.balance_pence });
  }
  const last = points.at(-1);
  if (last && last.date < ledger.as_of)
    points.push({ date: ledger.as_of, balance_pence: last.balance_pence });
  return points.map((point) => ({ date: point.date, balance: formatPence(point.balance_pence) }));
}
