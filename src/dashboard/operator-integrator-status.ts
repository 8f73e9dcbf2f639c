import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IntegratorView, integratorView } from '../integrators/schemas.ts';
import type { IntegratorStatus } from '../integrators/service.ts';
import { optionalBody } from '../platform/http/schemas.ts';
import { IntegratorParams, NotFound, OPERATOR_TAG, operatorConsoleErrors } from './operator-views.ts';
import { dashboardOperator } from './session-auth.ts';

/**
 * POST /operator/integrators/{id}/suspend/ or /unsuspend/: the integrators service sets the status (checking
 * `integrators.manage` and auditing the person) and every node stops or starts taking the integrator's tokens.
 */
export function consoleIntegratorStatusRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: 'suspend' | 'unsuspend',
  status: IntegratorStatus,
  doc: { operationId: string; summary: string; description: string },
): void {
  app.post(
    `/operator/integrators/:integrator_id/${action}/`,
    {
      preValidation: optionalBody,
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: `${doc.description} Needs \`integrators.manage\` (operator_admin).`,
        tags: [OPERATOR_TAG],
        params: IntegratorParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: IntegratorView, ...operatorConsoleErrors({ 404: NotFound }) },
      },
    },
    async (request) => {
      const integrator = await app.ctx.integrators.setStatus(
        request.params.integrator_id,
        status,
        dashboardOperator(request),
      );
      return integratorView(integrator);
    },
  );
}
