import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { operatorErrors } from '../schemas.ts';

export const listIntegratorsRoute: FastifyPluginAsyncTypebox = async (app) => {
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
};
