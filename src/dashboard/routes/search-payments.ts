import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors, pageQuery } from '../../platform/http/schemas.ts';
import { PAYMENT_SEARCH_FILTERS, paymentSearchFilter } from '../payment-search.ts';
import { DashboardPayment, dashboardPaymentView } from '../payment-views.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The platform's payments, newest first, by any mix of filters. */
export const searchPaymentsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/',
    {
      schema: {
        operationId: 'searchPayments',
        summary: 'Search the platform’s payments, newest first',
        description:
          'Every filter given must match; none lists every payment. `from` and `to` are UK days (Europe/London), ' +
          'both included. Cursor pagination: pass the last `payment_id` of a page as `starting_after` for the next; ' +
          'a payment made meanwhile never shifts a later page. Needs `payments.read`.',
        tags: ['Payments'],
        querystring: Type.Object(
          { ...PAYMENT_SEARCH_FILTERS, ...pageQuery('payment') },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(DashboardPayment), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const { limit, starting_after, ...filters } = request.query;
      const page = await app.ctx.payments.list({
        ...paymentSearchFilter(integratorId, filters),
        limit,
        ...(starting_after === undefined ? {} : { startingAfter: starting_after }),
      });
      return { data: page.rows.map(dashboardPaymentView), has_more: page.has_more };
    },
  );
};
