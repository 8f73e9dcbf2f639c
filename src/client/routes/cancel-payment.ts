import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceError } from '../../platform/errors.ts';
import { clientPayment, PaymentParams, waitingPaymentResponses } from '../payment-schemas.ts';

export const cancelPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/cancel',
    {
      schema: {
        operationId: 'cancelPayment',
        summary: 'Give up a payment waiting for 3DS, so the session can pay another way',
        description:
          'For a payment in `requires_action` (3DS, a wallet or an APM the tenant did not finish): the processor is ' +
          'told first, so a late authentication cannot charge. The answer is the payment, `canceled`, or its ' +
          'outcome if the tenant answered first. No body.',
        tags: ['Payments'],
        params: PaymentParams,
        response: waitingPaymentResponses('the payment is not waiting for authentication.'),
      },
    },
    async (request) => {
      const found = await app.ctx.payments.get(request.client.session, request.params.payment_id);
      // Only a payment made in this session: a recurring charge waits for its tenant until its confirm-by day.
      const own = found?.session_id === request.client.session.id ? found : undefined;
      if (!own) throw new ServiceError('not_found', 'No such payment in this session.');
      if (own.status !== 'requires_action') {
        throw new ServiceError(
          'conflict',
          `Only a payment waiting for authentication can be canceled; this one is ${own.status}.`,
        );
      }
      const payment = await app.ctx.payments.cancel(own.id);
      return clientPayment(payment ?? own);
    },
  );
};
