import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IntegratorView, integratorView } from '../../integrators/schemas.ts';
import type { IntegratorStatus } from '../../integrators/service.ts';
import { BadRequest, NotFound, operatorErrors, IntegratorParams as Params } from '../schemas.ts';

/** Recovery after a leaked token: reissue every server token, suspend and reactivate an integrator. */
export const integratorRecoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      const serverToken = await app.ctx.integrators.reissueServerToken(request.params.integrator_id);
      request.log.info({ integrator_id: request.params.integrator_id }, 'server tokens reissued');
      return reply.code(201).send({ server_token: serverToken });
    },
  );

  const statusRoute = (action: 'suspend' | 'unsuspend', status: IntegratorStatus, description: string) =>
    app.post(
      `/integrators/:integrator_id/${action}`,
      {
        schema: {
          operationId: action === 'suspend' ? 'suspendIntegrator' : 'unsuspendIntegrator',
          summary: action === 'suspend' ? 'Suspend an integrator' : 'Reactivate a suspended integrator',
          description: `${description} No body.`,
          tags: ['Integrators'],
          params: Params,
          response: { 200: IntegratorView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
        },
      },
      async (request) => {
        const integrator = await app.ctx.integrators.setStatus(request.params.integrator_id, status);
        request.log.info({ integrator_id: integrator.id, status }, `integrator ${action}ed`);
        return integratorView(integrator);
      },
    );
  statusRoute(
    'suspend',
    'suspended',
    'While suspended, the integrator’s server tokens get 403 `integrator_suspended` on the Integration API and its ' +
      'user session tokens the same on the Client API (the SDK’s init rejects with `integrator_suspended`). ' +
      'Recurring schedules keep charging and pending webhooks keep being delivered. Suspending twice changes nothing.',
  );
  statusRoute('unsuspend', 'active', 'Lifts a suspension: the integrator’s valid tokens work again.');
};
