import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { runBankFile } from '../../payouts/bank-account.ts';
import { foundRun, RunParams } from '../payout-runs.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

export const getPayoutRunFileRoute: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;

  app.get(
    '/payouts/runs/:payout_run_id/file',
    {
      schema: {
        operationId: 'getPayoutRunFile',
        summary: 'The bank’s bulk-payment file of a run (CSV)',
        description:
          'A header row (sort_code, account_number, account_name, amount, reference), then one row per payout: sort ' +
          'code (6 digits), account number (8 digits), account name, amount (`1200.00`) and reference (at most 18 ' +
          'characters, from the payment_reference). Every cell is quoted; a cell starting with = + - @ is prefixed ' +
          'with an apostrophe so a spreadsheet shows it as text.',
        tags: ['Payouts'],
        params: RunParams,
        querystring: Type.Object({ format: Type.Optional(Type.Literal('csv')) }),
        response: {
          200: { description: 'The file.', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const run = await payouts.getRun(request.params.payout_run_id);
      const view = foundRun(run, request.params.payout_run_id);
      const file = runBankFile(run!.items);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${view.payout_run_id}.csv"`)
        .send(file);
    },
  );
};
