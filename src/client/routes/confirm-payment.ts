import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceError } from '../../platform/errors.ts';
import { clientPayment, PaymentParams, waitingPaymentResponses } from '../payment-schemas.ts';

export const confirmPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments/:payment_id/confirm',
    {
      schema: {
        operationId: 'confirmPayment',
        summary: 'The tenant confirms a recurring charge their bank wants them to authenticate',
        description:
          'For a recurring charge listed in the session’s `action_required`: the processor confirms it with the ' +
          'same saved card, now that the tenant is here, and the answer is the payment in `requires_action` with ' +
          'the `next_action` to show (3DS), which then ends as any payment does. Asked again, it answers the ' +
          'payment as it stands. No body.',
        tags: ['Payments'],
        params: PaymentParams,
        response: waitingPaymentResponses('the payment is not a recurring charge waiting for the tenant.'),
      },
    },
    async (request) => {
      const session = request.client.session;
      const found = await app.ctx.payments.get(session, request.params.payment_id);
      if (!found) throw new ServiceError('not_found', 'No such payment for this tenant.');
      if (found.status !== 'requires_action' || !found.schedule_id) {
        throw new ServiceError(
          'conflict',
          `Only a recurring charge waiting for the tenant can be confirmed; this payment is ${found.status}.`,
        );
      }
      return clientPayment(await app.ctx.payments.confirmWithTenant(found));
    },
  );
};
