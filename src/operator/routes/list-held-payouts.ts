import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { formatPence } from '../../shared/money.ts';
import { BadRequest, operatorErrors } from '../schemas.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

export const listHeldPayoutsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;

  app.get(
    '/payouts/held',
    {
      schema: {
        operationId: 'listHeldPayouts',
        summary: 'Tenancies with rent to pay out that runs hold back, and why',
        description:
          'Rent a run would pay but holds back: the landlord account is not a UK one (6-digit sort code, 6- to 8-digit ' +
          'account number, a name), or in production it has not been approved yet (POST /payouts/approvals).',
        tags: ['Payouts'],
        querystring: Type.Object({ as_of: Type.Optional(Type.String({ format: 'date' })) }),
        response: {
          200: Type.Object({
            data: Type.Array(
              Type.Object({
                integrator_id: Type.String(),
                payment_reference: Type.String(),
                amount: Money,
                reason: Type.String(),
              }),
            ),
          }),
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request) => ({
      data: (await payouts.held(request.query.as_of)).map((held) => ({
        integrator_id: held.integrator_id,
        payment_reference: held.payment_reference,
        amount: formatPence(held.amount_pence),
        reason: held.reason,
      })),
    }),
  );
};
