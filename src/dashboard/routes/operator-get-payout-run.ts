import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ConsoleRun, consoleRun, RunParams } from '../operator-payout-views.ts';
import { NotFound, OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

export const operatorGetPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/payout-runs/:payout_run_id/',
    {
      schema: {
        operationId: 'operatorGetPayoutRun',
        summary: 'A payout run: its payouts and what it held back',
        description:
          'The run with every payout in it (tenancy, landlord account, amount, payments), the tenancies it held ' +
          'back and why, who made it, and whether you may confirm it (`confirm_refusal` says why not: in ' +
          'production the person who made a run cannot confirm it). Operator staff with `payments.read`.',
        tags: [OPERATOR_TAG],
        params: RunParams,
        response: { 200: ConsoleRun, ...operatorConsoleErrors({ 404: NotFound }) },
      },
    },
    async (request) => {
      const viewer = dashboardOperator(request);
      requirePermission(viewer, 'payments.read');
      const id = request.params.payout_run_id;
      return consoleRun(app.ctx.payouts, await app.ctx.payouts.getRun(id), id, viewer);
    },
  );
};
