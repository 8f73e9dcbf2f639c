import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { HomeView, homeFigures } from '../home.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The home page's figures: collection against rent due, arrears, payments and payouts waiting, webhook health. */
export const getHomeRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/home/',
    {
      schema: {
        operationId: 'getHome',
        summary: 'The home page’s figures',
        description:
          'Rent collected today and this month against rent due this month, the last 30 days as a series (collected ' +
          'and due per day), arrears by how long they are overdue, payments that failed or wait for their tenant, ' +
          'payouts waiting, and webhook health. Each figure has the `link` of the Dashboard API request that lists ' +
          'what it counts. "Today" and "this month" are UK days (Europe/London). Needs `payments.read`.',
        tags: ['Home'],
        response: { 200: HomeView, ...integrationErrors() },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      return homeFigures(app.ctx, integratorId);
    },
  );
};
