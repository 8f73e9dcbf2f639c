import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../platform/http/errors.ts';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { ClientPayment, clientPayment } from './payment-schemas.ts';

export const cancelPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/cancel',
    {
      schema: {
        summary: 'Give up a payment waiting for 3DS, so the session can pay another way',
        tags: ['Client'],
        params: Type.Object({ payment_id: Type.String({ maxLength: 64 }) }),
        response: { 200: ClientPayment, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse },
      },
    },
    async (request) => {
      const own = await app.ctx.payments.get(request.client.session.id, request.params.payment_id);
      if (!own) throw new ApiError('not_found', 'No such payment in this session.');
      if (own.status !== 'requires_action') {
        throw new ApiError(
          'conflict',
          `Only a payment waiting for authentication can be canceled; this one is ${own.status}.`,
        );
      }
      const payment = await app.ctx.payments.cancel(own.id);
      return clientPayment(payment ?? own);
    },
  );
};
