import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

export const getIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/integrators/:integrator_id',
    {
      schema: {
        operationId: 'getIntegrator',
        summary: 'Show one integrator',
        description: 'Its settings and status (never its tokens or webhook secret).',
        tags: ['Integrators'],
        params: IntegratorParams,
        response: { 200: IntegratorView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => integratorView(await app.ctx.integrators.get(request.params.integrator_id)),
  );
};
