import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PayoutRunView } from '../../payouts/view.ts';
import { foundRun, RunParams } from '../payout-runs.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

export const getPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;

  app.get(
    '/payouts/runs/:payout_run_id',
    {
      schema: {
        operationId: 'getPayoutRun',
        summary: 'Show a payout run and its payouts',
        description:
          'The run with every payout in it: the tenancy, the landlord’s account, the amount and its payments.',
        tags: ['Payouts'],
        params: RunParams,
        response: { 200: PayoutRunView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) =>
      foundRun(await payouts.getRun(request.params.payout_run_id), request.params.payout_run_id),
  );
};
