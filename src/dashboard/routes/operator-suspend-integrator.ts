import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { consoleIntegratorStatusRoute } from '../operator-integrator-status.ts';

export const operatorSuspendIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  consoleIntegratorStatusRoute(app, 'suspend', 'suspended', {
    operationId: 'operatorSuspendIntegrator',
    summary: 'Suspend an integrator',
    description:
      'From now on, on every node, its server tokens get 403 `integrator_suspended` on the Integration API and its ' +
      'user session tokens the same on the Client API. Recurring schedules keep charging and pending webhooks keep ' +
      'being delivered. Suspending twice changes nothing. No body.',
  });
};
