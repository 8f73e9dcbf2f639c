import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { BalanceSeries, balanceSeries, CalendarDate, LedgerView, ledgerView } from '../../ledger/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** A tenancy's rent ledger, as the Integration API gives it, and its balance over time for the chart. */
export const getTenancyLedgerRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tenancies/:payment_reference/ledger/',
    {
      schema: {
        operationId: 'getTenancyLedger',
        summary: 'A tenancy’s ledger and its balance over time',
        description:
          'The ledger exactly as the Integration API’s GET /ledger/ gives it (what fell due, what was paid, ' +
          'refunded and paid out, the balance and the arrears), and `balance_series` for a chart. A payment ' +
          'reference with `/` or spaces is sent percent-encoded. Needs `payments.read`.',
        tags: ['Tenants'],
        params: Type.Object({
          payment_reference: Type.String({ minLength: 1, maxLength: 50, description: 'The tenancy.' }),
        }),
        querystring: Type.Object(
          {
            as_of: Type.Optional({
              ...CalendarDate,
              description: 'The day to count to (default: today, UTC).',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { ...LedgerView.properties, balance_series: BalanceSeries },
            { title: 'TenancyLedger' },
          ),
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const { payment_reference: reference } = request.params;
      const ledger = await app.ctx.ledger.ledger(integratorId, reference, request.query.as_of);
      // Another platform's tenancy answers exactly as an unknown one.
      if (!ledger) throw new ServiceError('not_found', `No tenancy with payment reference "${reference}".`);
      return { ...ledgerView(ledger), balance_series: balanceSeries(ledger) };
    },
  );
};
