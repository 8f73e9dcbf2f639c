import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { consoleIntegratorStatusRoute } from '../operator-integrator-status.ts';

export const operatorUnsuspendIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  consoleIntegratorStatusRoute(app, 'unsuspend', 'active', {
    operationId: 'operatorUnsuspendIntegrator',
    summary: 'Reactivate a suspended integrator',
    description:
      'Its server tokens that are still valid work again (reissue them first after a leak). Reactivating an active ' +
      'integrator changes nothing. No body.',
  });
};
