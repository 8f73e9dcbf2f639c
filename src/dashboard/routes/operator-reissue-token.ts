import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { optionalBody } from '../../platform/http/schemas.ts';
import { IntegratorParams, NotFound, OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

/** Recovery after a leaked or lost token: every server token of the integrator ends, and a new one is issued. */
export const operatorReissueTokenRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/operator/integrators/:integrator_id/reissue-token/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'operatorReissueToken',
        summary: 'Reissue an integrator’s server token',
        description:
          'Ends every server token of the integrator at once (also one in its grace period) and issues a new one, ' +
          'shown in this answer only. For a leaked or lost token; a suspension stays as it is. No body. Needs ' +
          '`credentials.manage` (operator_admin).',
        tags: [OPERATOR_TAG],
        params: IntegratorParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: {
          201: Type.Object({
            server_token: Type.String({
              description: 'The only valid server token now; it is not shown again.',
            }),
          }),
          ...operatorConsoleErrors({ 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const serverToken = await app.ctx.integrators.reissueServerToken(
        request.params.integrator_id,
        dashboardOperator(request),
      );
      return reply.code(201).send({ server_token: serverToken });
    },
  );
};
