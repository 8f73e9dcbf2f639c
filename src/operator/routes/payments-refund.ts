import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PaymentView, paymentView } from '../../payments/view.ts';
import { ApiError, FieldValidationError } from '../../platform/http/errors.ts';
import {
  ErrorResponse,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_MESSAGE,
  optionalBody,
  Timestamp,
} from '../../platform/http/schemas.ts';
import { formatPence, parsePence } from '../../platform/money.ts';
import { operatorErrors } from '../schemas.ts';

const Refund = Type.Object({
  refund_id: Type.String(),
  payment_id: Type.String(),
  amount: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
    description:
      'pending: written, the processor has not answered yet (a background job finishes it); succeeded; failed.',
  }),
  created_at: Timestamp,
  payment: PaymentView,
});

export const refundPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/refunds',
    {
      preValidation: optionalBody,
      schema: {
        summary: 'Refund a payment, in full or in part; idempotent with an Idempotency-Key',
        tags: ['Operator'],
        params: Type.Object({ payment_id: Type.String({ maxLength: 64 }) }),
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              description:
                'A retry with the same key and amount is the same refund (200); another amount answers 422.',
            }),
          ),
        }),
        body: Type.Object({
          amount: Type.Optional(
            Type.String({ description: 'Pounds, e.g. "100.00"; absent: everything not refunded yet.' }),
          ),
        }),
        response: {
          200: Refund,
          201: Refund,
          202: Refund,
          ...operatorErrors(),
          409: ErrorResponse,
          422: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const { amount } = request.body;
      const key = request.headers['idempotency-key'];
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        throw new ApiError('invalid_request', `Idempotency-Key: ${IDEMPOTENCY_KEY_MESSAGE}`);
      }
      const amountPence = amount === undefined ? undefined : parsePence(amount);
      if (amount !== undefined && amountPence === undefined) {
        throw new FieldValidationError({ amount: ['Enter an amount in pounds, e.g. "100.00".'] });
      }
      const { refund, payment, replayed } = await app.ctx.payments.refund(
        request.params.payment_id,
        amountPence,
        key,
      );
      request.log.info(
        { payment_id: payment.id, refund_id: refund.id, status: refund.status, replayed },
        'payment refund',
      );
      if (refund.status === 'failed') {
        throw new ApiError('conflict', `The processor refused the refund: ${refund.failure_message}`);
      }
      return reply.code(refund.status === 'pending' ? 202 : replayed ? 200 : 201).send({
        refund_id: refund.id,
        payment_id: payment.id,
        amount: formatPence(Number(refund.amount_pence)),
        status: refund.status,
        created_at: new Date(refund.created_at).toISOString(),
        payment: paymentView(payment),
      });
    },
  );
};
