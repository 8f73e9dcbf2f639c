import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  REFUND_RESPONSES,
  RefundBody,
  RefundHeaders,
  refundOwnPayment,
} from '../../payments/refund-request.ts';
import { IdString, optionalBody } from '../../platform/http/schemas.ts';
import { serverTokenActor } from '../actor.ts';

const PaymentParams = Type.Object({ payment_id: IdString('pay', 'a payment') });

/** Refunds of your own payments: the operator's rules, limited to your payments. */
export const refundPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/refunds/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund one of your payments, in full or in part',
        description:
          'Send an `Idempotency-Key`: a retry with the same key and amount answers 200 with the same refund and ' +
          'refunds nothing more. 201: refunded; 202: the processor has not answered yet (the refund finishes in the ' +
          'background and `payment_refunded` follows); 409 `conflict`: the processor refused it; 409 `paid_out`: the ' +
          'rent has been paid out to the landlord in a confirmed payout (only the operator can refund it now, and what ' +
          "it takes back comes off the landlord's next payout); 422: the same key with " +
          'another amount; 400 on `amount`: more than is left to refund. A `payment_refunded` webhook follows each refund.',
        tags: ['Payments'],
        params: PaymentParams,
        headers: RefundHeaders,
        body: RefundBody,
        response: REFUND_RESPONSES,
      },
    },
    async (request, reply) => {
      const { payment_id } = request.params;
      const refunded = await refundOwnPayment(app.ctx.payments, request.integrator.id, {
        paymentId: payment_id,
        body: request.body,
        key: request.headers['idempotency-key'],
        log: request.log,
        actor: serverTokenActor(request),
        unknownDetail: `No payment ${payment_id}. List yours with GET /api/third-party/payments/.`,
      });
      return reply.code(refunded.code).send(refunded.body);
    },
  );
};
