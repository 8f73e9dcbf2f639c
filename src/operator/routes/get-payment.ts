import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../platform/errors.ts';
import { IdString } from '../../platform/http/schemas.ts';
import { OperatorPaymentView, operatorPaymentView } from '../payment-view.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

export const getPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id',
    {
      schema: {
        operationId: 'getPayment',
        summary: 'Show one payment',
        description: 'Any integrator’s payment, with whose it is and how much of it was refunded.',
        tags: ['Payments'],
        params: Type.Object({
          payment_id: IdString('pay', 'a payment'),
        }),
        response: { 200: OperatorPaymentView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => {
      const { payment_id } = request.params;
      const row = await app.ctx.payments.byId(payment_id);
      if (!row) throw new ServiceError('not_found', `No payment ${payment_id}.`);
      return operatorPaymentView(row);
    },
  );
};
