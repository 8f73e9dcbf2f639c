import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { operatorErrors } from '../schemas.ts';

export const readIntegratorsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/integrators',
    {
      schema: {
        summary: 'List integrators',
        tags: ['Operator'],
        response: { 200: Type.Object({ data: Type.Array(IntegratorView) }), ...operatorErrors() },
      },
    },
    async () => ({ data: (await app.ctx.integrators.list()).map(integratorView) }),
  );

  app.get(
    '/integrators/:integrator_id',
    {
      schema: {
        summary: 'Show one integrator',
        tags: ['Operator'],
        params: Type.Object({ integrator_id: Type.String({ maxLength: 64 }) }),
        response: { 200: IntegratorView, ...operatorErrors() },
      },
    },
    async (request) => integratorView(await app.ctx.integrators.get(request.params.integrator_id)),
  );
};
