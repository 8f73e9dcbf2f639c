import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, NotFound, operatorErrors, IntegratorParams as Params } from '../schemas.ts';

/** Recovery after a leaked or lost token: every server token of the integrator ends, and a new one is issued. */
export const reissueServerTokenRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/integrators/:integrator_id/tokens/reissue',
    {
      schema: {
        operationId: 'reissueServerToken',
        summary: 'Reissue the server token',
        description:
          'Ends every server token of the integrator at once (also one in its grace period) and issues a new one. ' +
          'For a leaked or lost token. Suspension, if set, stays as it is. No body.',
        tags: ['Integrators'],
        params: Params,
        response: {
          201: Type.Object({
            server_token: Type.String({
              description: 'The only valid server token now; it is not shown again.',
            }),
          }),
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const serverToken = await app.ctx.integrators.reissueServerToken(
        request.params.integrator_id,
        operatorTokenActor(request),
      );
      request.log.info({ integrator_id: request.params.integrator_id }, 'server tokens reissued');
      return reply.code(201).send({ server_token: serverToken });
    },
  );
};
