import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import {
  ConsoleIntegrator,
  consoleIntegratorView,
  HEALTH_DAYS,
  OPERATOR_TAG,
  operatorConsoleErrors,
} from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

const DAY_MS = 86_400_000;

/** Every integrator with its health: three grouped queries, whatever the number of integrators. */
export const operatorListIntegratorsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/integrators/',
    {
      schema: {
        operationId: 'operatorListIntegrators',
        summary: 'Every integrator and its health',
        description:
          `Each integrator of this service, oldest first: its status, environment and creation, its payments of the ` +
          `last ${HEALTH_DAYS} days (succeeded: count and amount; failed; the failure rate) and its webhook backlog ` +
          '(pending deliveries and the oldest one’s age, failed ones). Operator staff with `payments.read` ' +
          '(operator_admin, operator_support).',
        tags: [OPERATOR_TAG],
        response: { 200: Type.Object({ data: Type.Array(ConsoleIntegrator) }), ...operatorConsoleErrors() },
      },
    },
    async (request) => {
      requirePermission(dashboardOperator(request), 'payments.read');
      const now = app.ctx.clock.now();
      const [integrators, volume, backlog] = await Promise.all([
        app.ctx.integrators.list(),
        app.ctx.payments.volumeByIntegrator(new Date(now.getTime() - HEALTH_DAYS * DAY_MS)),
        app.ctx.webhooks.backlogByIntegrator(),
      ]);
      return {
        data: integrators.map((integrator) =>
          consoleIntegratorView(integrator, volume.get(integrator.id), backlog.get(integrator.id), now),
        ),
      };
    },
  );
};
