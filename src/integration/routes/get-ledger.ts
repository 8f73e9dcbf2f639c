import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CalendarDate, LedgerView, ledgerView } from '../../ledger/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';

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
