import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PAYMENT_STATUSES } from '../../payments/list.ts';
import { IdString, pageQuery } from '../../platform/http/schemas.ts';
import { OperatorPaymentView, operatorPaymentView } from '../payment-view.ts';
import { BadRequest, operatorErrors } from '../schemas.ts';

const ListQuery = Type.Object(
  {
    integrator_id: Type.Optional(
      IdString('int', 'an integrator', { description: 'Only this integrator’s payments.' }),
    ),
    status: Type.Optional(Type.Enum([...PAYMENT_STATUSES], { examples: ['succeeded'] })),
    session_id: Type.Optional(
      IdString('ses', 'a session', { description: 'Only the payments of this payment session.' }),
    ),
    ...pageQuery('payment'),
  },
  { additionalProperties: false },
);

export const listPaymentsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments',
    {
      schema: {
        operationId: 'listPayments',
        summary: 'List payments, newest first',
        description:
          'Every integrator’s payments, filtered by integrator, status or session; `limit` per page (1 to 100, ' +
          'default 20). For the next page pass the last payment_id as `starting_after` while `has_more` is true.',
        tags: ['Payments'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(OperatorPaymentView), has_more: Type.Boolean() }),
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request) => {
      const { integrator_id, status, session_id, limit, starting_after } = request.query;
      const page = await app.ctx.payments.list({
        ...(integrator_id === undefined ? {} : { integratorId: integrator_id }),
        ...(status === undefined ? {} : { status }),
        ...(session_id === undefined ? {} : { sessionId: session_id }),
        limit,
        ...(starting_after === undefined ? {} : { startingAfter: starting_after }),
      });
      return { data: page.rows.map(operatorPaymentView), has_more: page.has_more };
    },
  );
};
