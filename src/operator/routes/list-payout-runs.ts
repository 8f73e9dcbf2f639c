import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PayoutRunView, payoutRunView } from '../../payouts/view.ts';
import { operatorErrors } from '../schemas.ts';

const { items: _items, ...summaryProperties } = PayoutRunView.properties;
const PayoutRunSummary = Type.Object(summaryProperties, { title: 'PayoutRunSummary' });

export const listPayoutRunsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;

  app.get(
    '/payouts/runs',
    {
      schema: {
        operationId: 'listPayoutRuns',
        summary: 'List payout runs, newest first (100)',
        description:
          'Each run’s status, as_of and total, without its payouts (GET /payouts/runs/{id} has them).',
        tags: ['Payouts'],
        response: { 200: Type.Object({ data: Type.Array(PayoutRunSummary) }), ...operatorErrors() },
      },
    },
    async () => ({
      data: (await payouts.listRuns()).map((run) => {
        const { items: _none, ...summary } = payoutRunView(run, []);
        return summary;
      }),
    }),
  );
};
