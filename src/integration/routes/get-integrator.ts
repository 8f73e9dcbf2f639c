import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';

export const getIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/integrator/',
    {
      schema: {
        operationId: 'getIntegrator',
        summary: 'Show your own integrator settings',
        description:
          'The settings the operator holds for the calling server token: webhook URL, allowed origins, fees (and ' +
          'business_lets, whether tenants are declared businesses), rate limit. ' +
          'A cheap way to check that a token works.',
        tags: ['Authentication'],
        response: { 200: IntegratorView, ...integrationErrors() },
      },
    },
    async (request) => integratorView(request.integrator),
  );
};
