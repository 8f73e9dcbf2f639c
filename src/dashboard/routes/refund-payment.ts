import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { REFUND_RESPONSES, RefundBody, refundOwnPayment } from '../../payments/refund-request.ts';
import { IdString, optionalBody } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** A refund by a person of the platform: the Integration API's refund, with their name on it. */
export const refundPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/refunds/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund a payment, in full or in part',
        description:
          'The same refund and answers as the Integration API’s: 201 refunded; 202 the processor has not answered ' +
          'yet (it finishes in the background); 200 the same refund again (same `Idempotency-Key` and amount, ' +
          'nothing more refunded); 409 `conflict` (refused by the processor, or nothing left); 409 `paid_out` (the ' +
          'rent is in a confirmed payout: only the operator can refund it now); 422 the same key with another ' +
          'amount; 400 on `amount` for more than is left. Needs `refunds.create` (admin, finance), checked by the ' +
          'refund service; the audit log names the person.',
        tags: ['Payments'],
        params: Type.Object({ payment_id: IdString('pay', 'a payment') }),
        headers: Type.Object({
          'idempotency-key': Type.String({
            description:
              'Required: one per refund the person means (the page makes one per confirmation). A retry with the ' +
              'same key and amount is the same refund (200); another amount answers 422.',
          }),
        }),
        body: RefundBody,
        response: REFUND_RESPONSES,
      },
    },
    async (request, reply) => {
      const { payment_id } = request.params;
      const refunded = await refundOwnPayment(app.ctx.payments, dashboardIntegrator(request), {
        paymentId: payment_id,
        body: request.body,
        key: request.headers['idempotency-key'],
        log: request.log,
        actor: dashboardActor(request),
        unknownDetail: `No payment ${payment_id}.`,
      });
      return reply.code(refunded.code).send(refunded.body);
    },
  );
};
