import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PayoutRunView, payoutRunView } from '../../payouts/view.ts';
import { optionalBody } from '../../platform/http/schemas.ts';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, operatorErrors } from '../schemas.ts';

export const createPayoutRunRoute: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;

  app.post(
    '/payouts/runs',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'createPayoutRun',
        summary: 'Make a payout run',
        description:
          'One payout per tenancy with rent to pay out as of `as_of` (default today): the rent of its succeeded ' +
          'payments made on or before that day whose funds the processor has made available by then (and by today) ' +
          'and that no open dispute holds, not yet paid out, less the rent part of refunds and lost disputes not yet ' +
          'deducted (one after a payout is deducted from the next). Tenancies whose landlord account is not a ' +
          'UK one, or (in production) not yet approved, are held out (GET /payouts/held). Runs never share a ' +
          'payment, even when made at once. Nothing to pay: a run with no items and total 0.00.',
        tags: ['Payouts'],
        body: Type.Object(
          {
            as_of: Type.Optional(
              Type.String({ format: 'date', description: 'YYYY-MM-DD; default today (UTC).' }),
            ),
          },
          { additionalProperties: false, examples: [{ as_of: '2026-03-31' }, {}] },
        ),
        response: { 201: PayoutRunView, ...operatorErrors({ 400: BadRequest }) },
      },
    },
    async (request, reply) => {
      const asOf = request.body.as_of;
      const run = await payouts.createRun(operatorTokenActor(request), asOf);
      request.log.info({ payout_run_id: run.run.id, items: run.items.length }, 'payout run created');
      return reply.code(201).send(payoutRunView(run.run, run.items));
    },
  );
};
