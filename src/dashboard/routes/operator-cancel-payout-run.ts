import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { consoleRunChangeRoute } from '../operator-payout-run-change.ts';

export const operatorCancelPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  consoleRunChangeRoute(app, 'cancel', {
    operationId: 'operatorCancelPayoutRun',
    summary: 'Cancel a run not yet confirmed',
    description:
      'The run becomes canceled and its payments and refunds are payable again, in the next run; anyone who may ' +
      'manage payouts may cancel, also the person who made it. Canceling a canceled run changes nothing; a ' +
      'confirmed one answers 409. Needs `payouts.manage` (operator_admin).',
  });
};
