import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ConsoleRunSummary, consoleRunSummary } from '../operator-payout-views.ts';
import { OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

export const operatorListPayoutRunsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/payout-runs/',
    {
      schema: {
        operationId: 'operatorListPayoutRuns',
        summary: 'Payout runs, newest first (100)',
        description:
          'Each run’s status, as_of and total, who made it and whether you may confirm it (and if not, why), ' +
          'without its payouts (GET /operator/payout-runs/{id}/ has them). Operator staff with `payments.read`.',
        tags: [OPERATOR_TAG],
        response: { 200: Type.Object({ data: Type.Array(ConsoleRunSummary) }), ...operatorConsoleErrors() },
      },
    },
    async (request) => {
      const viewer = dashboardOperator(request);
      requirePermission(viewer, 'payments.read');
      const runs = await app.ctx.payouts.listRuns();
      return { data: runs.map((run) => consoleRunSummary(app.ctx.payouts, run, viewer)) };
    },
  );
};
