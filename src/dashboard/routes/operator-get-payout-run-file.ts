import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { runBankFile } from '../../payouts/bank-account.ts';
import { ServiceError } from '../../platform/errors.ts';
import { RunParams } from '../operator-payout-views.ts';
import { NotFound, OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

export const operatorGetPayoutRunFileRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/payout-runs/:payout_run_id/file',
    {
      schema: {
        operationId: 'operatorGetPayoutRunFile',
        summary: 'Download a run’s bank file (CSV)',
        description:
          'The bank’s bulk-payment file, the same as the Operator API’s: a header row (sort_code, account_number, ' +
          'account_name, amount, reference), then one row per payout; every cell quoted, and a cell starting with ' +
          '= + - @ prefixed with an apostrophe. Sent as an attachment named after the run. Operator staff with ' +
          '`payments.read`.',
        tags: [OPERATOR_TAG],
        params: RunParams,
        response: {
          200: { description: 'The file.', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...operatorConsoleErrors({ 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      requirePermission(dashboardOperator(request), 'payments.read');
      const id = request.params.payout_run_id;
      const run = await app.ctx.payouts.getRun(id);
      if (!run) throw new ServiceError('not_found', `No payout run ${id}.`);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${run.run.id}.csv"`)
        .send(runBankFile(run.items));
    },
  );
};
