import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { LEDGER_ENTRY_TYPES } from '../../ledger/balance.ts';
import type { TenancyLedger } from '../../ledger/service.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { formatPence } from '../../shared/money.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });
const CalendarDate = Type.String({ format: 'date', description: 'YYYY-MM-DD (a UTC calendar day).' });

const LedgerView = Type.Object(
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
        balance: Type.String({
          pattern: '^-?\\d+\\.\\d{2}$',
          description: 'What the tenant owes after this entry; negative when paid ahead.',
          examples: ['0.00', '1200.00', '-50.00'],
        }),
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

function ledgerView(ledger: TenancyLedger): Static<typeof LedgerView> {
  return {
    payment_reference: ledger.payment_reference,
    currency: 'GBP',
    as_of: ledger.as_of,
    entries: ledger.entries.map((entry) => ({
      date: entry.date,
      type: entry.type,
      amount: formatPence(entry.amount_pence),
      ...(entry.payment_id ? { payment_id: entry.payment_id } : {}),
      ...(entry.payout_id ? { payout_id: entry.payout_id } : {}),
      balance: formatPence(entry.balance_pence),
    })),
    arrears: formatPence(ledger.arrears_pence),
    next_due: ledger.next_due
      ? { date: ledger.next_due.date, amount: formatPence(ledger.next_due.amount_pence) }
      : null,
    days_overdue: ledger.days_overdue,
  };
}

export const getLedgerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/ledger/',
    {
      schema: {
        operationId: 'getLedger',
        summary: "A tenancy's rent ledger: what fell due, what was paid, the balance and the arrears",
        description:
          'Due dates come from the installment plan when the tenancy has one, else from start_rent_date, ' +
          "rent_due_day (on the month's last day when the month is shorter) and frequency, up to end_rent_date; " +
          'each due date takes the amount and frequency in force on it. A payment counts towards the tenancy it ' +
          'was made for, on the UTC day it was made; refunds give the rent back first and the fee last.',
        tags: ['Ledger'],
        querystring: Type.Object({
          payment_reference: Type.String({ minLength: 1, maxLength: 50, description: 'The tenancy.' }),
          as_of: Type.Optional({
            ...CalendarDate,
            description: 'The day to count to (default: today, UTC).',
          }),
        }),
        response: { 200: LedgerView, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const { payment_reference: reference, as_of: asOf } = request.query;
      const ledger = await app.ctx.ledger.ledger(request.integrator.id, reference, asOf);
      // Another integrator's tenancy answers exactly as an unknown one.
      if (!ledger) {
        throw new ServiceError(
          'not_found',
          `No tenancy with payment_reference "${reference}". Use a payment_reference you onboarded.`,
        );
      }
      return ledgerView(ledger);
    },
  );
};
