import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { consoleRunChangeRoute } from '../operator-payout-run-change.ts';

export const operatorConfirmPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  consoleRunChangeRoute(app, 'confirm', {
    operationId: 'operatorConfirmPayoutRun',
    summary: 'Mark a run paid',
    description:
      'After the bank file was sent: the run becomes confirmed, its payouts paid, and each sends payout_paid to its ' +
      'integrator. In production the person who made the run cannot confirm it (403, four eyes): another ' +
      'operator_admin must. Confirming a confirmed run changes nothing; a canceled one answers 409. Needs ' +
      '`payouts.manage` (operator_admin).',
  });
};
