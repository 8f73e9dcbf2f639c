import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IntegratorView, integratorView } from '../integrators/schemas.ts';
import type { IntegratorStatus } from '../integrators/service.ts';
import { operatorTokenActor } from './actor.ts';
import { BadRequest, NotFound, operatorErrors, IntegratorParams as Params } from './schemas.ts';

/** What a route that sets an integrator's status says of itself in the API document. */
interface IntegratorStatusDoc {
  operationId: string;
  summary: string;
  description: string;
}

/**
 * POST /integrators/{id}/suspend or /unsuspend (recovery after a leaked token): sets the integrator's status and
 * answers the integrator. Suspending and reactivating differ only in the status and in what their document says.
 */
export function integratorStatusRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: 'suspend' | 'unsuspend',
  status: IntegratorStatus,
  doc: IntegratorStatusDoc,
): void {
  app.post(
    `/integrators/:integrator_id/${action}`,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: doc.description,
        tags: ['Integrators'],
        params: Params,
        response: { 200: IntegratorView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => {
      const integrator = await app.ctx.integrators.setStatus(
        request.params.integrator_id,
        status,
        operatorTokenActor(request),
      );
      request.log.info({ integrator_id: integrator.id, status }, `integrator ${action}ed`);
      return integratorView(integrator);
    },
  );
}
