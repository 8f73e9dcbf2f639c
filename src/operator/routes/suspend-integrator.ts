import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { integratorStatusRoute } from '../integrator-status.ts';

export const suspendIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  integratorStatusRoute(app, 'suspend', 'suspended', {
    operationId: 'suspendIntegrator',
    summary: 'Suspend an integrator',
    description:
      'While suspended, the integrator’s server tokens get 403 `integrator_suspended` on the Integration API and its ' +
      'user session tokens the same on the Client API (the SDK’s init rejects with `integrator_suspended`). ' +
      'Recurring schedules keep charging and pending webhooks keep being delivered. Suspending twice changes ' +
      'nothing. No body.',
  });
};
