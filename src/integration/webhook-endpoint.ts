import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A preHandler: where events go and how they are signed belongs to the newest token, so a leaked, replaced one
 * cannot take it over.
 */
export const newestTokenOnly = (app: FastifyInstance, action: string) => async (request: FastifyRequest) =>
  app.ctx.integrators.assertNewestToken(request.integrator.id, request.serverTokenId, action);
