import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  OPERATOR_TAG,
  operatorConsoleErrors,
  SystemHealthView,
  systemHealthView,
} from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

/** The machinery every node shares: the job queue, the database, the workers' heartbeats. */
export const operatorGetHealthRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/health/',
    {
      schema: {
        operationId: 'operatorGetHealth',
        summary: 'System health',
        description:
          'Read from the database every node shares, so any node answers the same: the job queue by kind (pending, ' +
          'due, running, failed, and the oldest due job), whether the database answers and its round trip from this ' +
          'node, and every job worker’s last heartbeat, `stale` once older than that worker’s limit. Operator staff ' +
          '(operator_admin, operator_support).',
        tags: [OPERATOR_TAG],
        response: { 200: SystemHealthView, ...operatorConsoleErrors() },
      },
    },
    async (request) => {
      dashboardOperator(request);
      const report = await app.ctx.health.report();
      return systemHealthView(report, app.ctx.clock.now());
    },
  );
};
