import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceError } from '../../platform/errors.ts';
import { BadRequest, clientErrors, NotFound } from '../../sessions/client-schemas.ts';
import { ClientPayment, clientPayment, PaymentParams } from '../payment-schemas.ts';

export const getPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id',
    {
      schema: {
        operationId: 'getPayment',
        summary: 'One payment of this session, e.g. to follow it after 3DS',
        description:
          'The page polls this while a payment is `requires_action` or `processing`. With Stripe, a waiting payment ' +
          'is also read from Stripe, at most once every 5 seconds (Stripe’s events bring its outcome in between). ' +
          'A recurring charge of this session’s tenant can be read too (it may wait for them to confirm it); another ' +
          'session’s payment is answered as an unknown one (404).',
        tags: ['Payments'],
        params: PaymentParams,
        response: { 200: ClientPayment, ...clientErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => {
      const payment = await app.ctx.payments.get(request.client.session, request.params.payment_id);
      // Another session's payment answers exactly as an unknown one.
      if (!payment) throw new ServiceError('not_found', 'No such payment in this session.');
      return clientPayment(await app.ctx.payments.refreshWaiting(payment));
    },
  );
};
