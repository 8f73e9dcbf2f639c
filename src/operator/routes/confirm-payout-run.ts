import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { payoutRunChangeRoute } from '../payout-runs.ts';

export const confirmPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  payoutRunChangeRoute(app, 'confirm', {
    operationId: 'confirmPayoutRun',
    summary: 'Mark a run paid',
    description:
      'After the bank file was sent: the run becomes confirmed, its payouts paid, and each sends payout_paid ' +
      'to its integrator. Confirming a confirmed run changes nothing; a canceled one answers 409.',
  });
};
