import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

export const readIntegratorsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/integrators',
    {
      schema: {
        operationId: 'listIntegrators',
        summary: 'List integrators',
        description:
          'Every integrator of this service, with its settings (never its tokens or webhook secret).',
        tags: ['Integrators'],
        response: { 200: Type.Object({ data: Type.Array(IntegratorView) }), ...operatorErrors() },
      },
    },
    async () => ({ data: (await app.ctx.integrators.list()).map(integratorView) }),
  );

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
