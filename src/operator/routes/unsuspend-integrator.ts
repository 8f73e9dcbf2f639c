import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { integratorStatusRoute } from '../integrator-status.ts';

export const unsuspendIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  integratorStatusRoute(app, 'unsuspend', 'active', {
    operationId: 'unsuspendIntegrator',
    summary: 'Reactivate a suspended integrator',
    description: 'Lifts a suspension: the integrator’s valid tokens work again. No body.',
  });
};
