import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { payoutRunChangeRoute } from '../payout-runs.ts';

export const cancelPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  payoutRunChangeRoute(app, 'cancel', {
    operationId: 'cancelPayoutRun',
    summary: 'Cancel a run not yet confirmed',
    description:
      'The run becomes canceled and its payments and refunds are payable again, in the next run. ' +
      'Canceling a canceled run changes nothing; a confirmed one answers 409.',
  });
};
