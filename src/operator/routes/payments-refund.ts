import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PaymentView, paymentView } from '../../payments/view.ts';
import { FieldValidationError } from '../../platform/http/errors.ts';
import { ErrorResponse, optionalBody, Timestamp } from '../../platform/http/schemas.ts';
import { formatPence, parsePence } from '../../platform/money.ts';
import { operatorErrors } from '../schemas.ts';

export const refundPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/refunds',
    {
      preValidation: optionalBody,
      schema: {
        summary: 'Refund a payment, in full or in part',
        tags: ['Operator'],
        params: Type.Object({ payment_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({
          amount: Type.Optional(
            Type.String({ description: 'Pounds, e.g. "100.00"; absent: everything not refunded yet.' }),
          ),
        }),
        response: {
          201: Type.Object({
            refund_id: Type.String(),
            payment_id: Type.String(),
            amount: Type.String(),
            status: Type.String(),
            created_at: Timestamp,
            payment: PaymentView,
          }),
          ...operatorErrors(),
          409: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const { amount } = request.body;
      const amountPence = amount === undefined ? undefined : parsePence(amount);
      if (amount !== undefined && amountPence === undefined) {
        throw new FieldValidationError({ amount: ['Enter an amount in pounds, e.g. "100.00".'] });
      }
      const { refund, payment } = await app.ctx.payments.refund(request.params.payment_id, amountPence);
      request.log.info({ payment_id: payment.id, refund_id: refund.id }, 'payment refunded');
      return reply.code(201).send({
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
