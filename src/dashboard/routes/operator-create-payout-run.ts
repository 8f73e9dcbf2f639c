import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { optionalBody } from '../../platform/http/schemas.ts';
import { ConsoleRun, consoleRun } from '../operator-payout-views.ts';
import { OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

export const operatorCreatePayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/operator/payout-runs/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'operatorCreatePayoutRun',
        summary: 'Make a payout run',
        description:
          'One payout per tenancy with rent to pay out as of `as_of` (default today, UTC), by the same rule as the ' +
          'Operator API’s createPayoutRun; tenancies whose landlord account is not a UK one, or in production not ' +
          'yet approved, are held back and listed in `held`. The run records who made it: in production that ' +
          'person cannot confirm it. Needs `payouts.manage` (operator_admin).',
        tags: [OPERATOR_TAG],
        body: Type.Object(
          {
            as_of: Type.Optional(
              Type.String({ format: 'date', description: 'YYYY-MM-DD; default today (UTC).' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: ConsoleRun, ...operatorConsoleErrors() },
      },
    },
    async (request, reply) => {
      const actor = dashboardOperator(request);
      const run = await app.ctx.payouts.createRun(actor, request.body.as_of);
      return reply.code(201).send(await consoleRun(app.ctx.payouts, run, run.run.id, actor));
    },
  );
};
