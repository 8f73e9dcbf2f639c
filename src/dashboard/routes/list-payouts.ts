import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { PayoutsQuery, PlatformPayoutView, platformPayoutView } from '../payout-views.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The platform's payouts to landlords, newest first. */
export const listPayoutsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payouts/',
    {
      schema: {
        operationId: 'listPayouts',
        summary: 'The platform’s payouts to landlords, newest first',
        description:
          'Every payout of every tenancy, or of one (`payment_reference`; 404 for one the platform does not ' +
          'have), or of one status. Cursor pagination with `starting_after` (the last payout_id of a page). ' +
          'Needs `payments.read`.',
        tags: ['Payouts'],
        querystring: PayoutsQuery,
        response: {
          200: Type.Object({ data: Type.Array(PlatformPayoutView), has_more: Type.Boolean() }),
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const { payment_reference, status, limit, starting_after } = request.query;
      const page = await app.ctx.payouts.listForIntegrator(integratorId, {
        paymentReference: payment_reference,
        status,
        limit,
        startingAfter: starting_after,
      });
      return { data: page.rows.map(platformPayoutView), has_more: page.has_more };
    },
  );
};
