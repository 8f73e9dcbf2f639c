import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RefundBody, RefundHeaders, RefundView, refundPayment } from '../../payments/refund-request.ts';
import { ErrorResponse, IdString, optionalBody } from '../../platform/http/schemas.ts';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

export const refundPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/refunds',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund a payment, in full or in part; idempotent with an Idempotency-Key',
        description:
          'Refunds `amount` of a succeeded payment, or everything not refunded yet without it (the body may be left ' +
          'out). 201: refunded; 202: the processor has not answered yet (a background job finishes it, and ' +
          'payment_refunded is sent); 200: the refund this Idempotency-Key already made. More than is left is a 400 ' +
          'on amount.',
        tags: ['Payments'],
        params: Type.Object({
          payment_id: IdString('pay', 'a payment'),
        }),
        headers: RefundHeaders,
        body: { ...RefundBody, examples: [{ amount: '100.00' }] },
        response: {
          200: { ...RefundView, description: 'A retry: the refund this Idempotency-Key made.' },
          201: { ...RefundView, description: 'Refunded.' },
          202: { ...RefundView, description: 'Pending at the processor.' },
          ...operatorErrors({
            400: BadRequest,
            404: NotFound,
            409: {
              ...ErrorResponse,
              description:
                'conflict: the payment is not succeeded, is refunded in full (or the rest is being refunded), or the ' +
                'processor refused the refund.',
            },
            422: {
              ...ErrorResponse,
              description: 'idempotency_mismatch: the Idempotency-Key was used for another amount.',
            },
          }),
        },
      },
    },
    async (request, reply) => {
      const refunded = await refundPayment(
        app.ctx.payments,
        request.params.payment_id,
        request.body,
        request.headers['idempotency-key'],
        request.log,
        operatorTokenActor(request),
      );
      return reply.code(refunded.code).send(refunded.body);
    },
  );
};
