import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, operatorErrors } from '../schemas.ts';

export const approvePayeeRoute: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;

  app.post(
    '/payouts/approvals',
    {
      schema: {
        operationId: 'approvePayee',
        summary: 'Approve a landlord account for payouts (production)',
        description:
          'In production a landlord account is held out of runs until approved once; in the sandbox every UK account ' +
          'is paid without approval.',
        tags: ['Payouts'],
        body: Type.Object(
          { sort_code: Type.String({ maxLength: 50 }), account_number: Type.String({ maxLength: 50 }) },
          { additionalProperties: false, examples: [{ sort_code: '12-34-56', account_number: '12345678' }] },
        ),
        response: {
          201: Type.Object({ sort_code: Type.String(), account_number: Type.String() }),
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await payouts.approve(
            request.body.sort_code,
            request.body.account_number,
            operatorTokenActor(request),
          ),
        ),
  );
};
