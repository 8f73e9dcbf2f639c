import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RefundBody, RefundHeaders, RefundView, refundPayment } from '../../payments/routes/refund.ts';
import { ErrorResponse, optionalBody } from '../../platform/http/schemas.ts';
import { operatorErrors } from '../schemas.ts';

export const refundPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/refunds',
    {
      preValidation: optionalBody,
      schema: {
        summary: 'Refund a payment, in full or in part; idempotent with an Idempotency-Key',
        tags: ['Operator'],
        params: Type.Object({ payment_id: Type.String({ maxLength: 64 }) }),
        headers: RefundHeaders,
        body: RefundBody,
        response: {
          200: RefundView,
          201: RefundView,
          202: RefundView,
          ...operatorErrors(),
          409: ErrorResponse,
          422: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const refunded = await refundPayment(
        app,
        request.params.payment_id,
        request.body,
        request.headers['idempotency-key'],
        request.log,
      );
      return reply.code(refunded.code).send(refunded.body);
    },
  );
};
