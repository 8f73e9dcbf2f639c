import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../platform/http/errors.ts';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { ClientPayment, clientPayment } from './payment-schemas.ts';

export const getPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id',
    {
      schema: {
        summary:
          'One payment of this session, e.g. to follow it after 3DS (with Stripe, a waiting payment is read from Stripe)',
        tags: ['Client'],
        params: Type.Object({ payment_id: Type.String({ maxLength: 64 }) }),
        response: { 200: ClientPayment, 401: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => {
      const payment = await app.ctx.payments.get(request.client.session.id, request.params.payment_id);
      // Another session's payment answers exactly as an unknown one.
      if (!payment) throw new ApiError('not_found', 'No such payment in this session.');
      return clientPayment(await app.ctx.payments.refreshWaiting(payment));
    },
  );
};
