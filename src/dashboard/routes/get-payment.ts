import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { refundablePence } from '../../payments/refunds.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import { formatPence } from '../../shared/money.ts';
import { WebhookEventView, webhookEventView } from '../../webhooks/schemas.ts';
import { paymentTimeline } from '../payment-timeline.ts';
import { DashboardPayment, dashboardPaymentView, TimelineEntry } from '../payment-views.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

const PaymentDetail = Type.Object(
  {
    ...DashboardPayment.properties,
    refundable: {
      ...DashboardPayment.properties.refunded,
      description: 'Left to refund: neither refunded nor being refunded (0.00 unless it succeeded).',
    },
    timeline: Type.Array(TimelineEntry, { description: 'What happened to it, oldest first.' }),
    webhook_deliveries: Type.Array(WebhookEventView, {
      description:
        'The events about it (payment_success, payment_refunded, …), oldest first, each with its delivery.',
    }),
  },
  { title: 'DashboardPaymentDetail' },
);

/** One payment with its tenant, timeline and the webhook deliveries of its events. */
export const getPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id/',
    {
      schema: {
        operationId: 'getPayment',
        summary: 'One payment: its tenant, timeline and webhook deliveries',
        description:
          'The payment as the search lists it (tenant, tenancy, method, amounts), a `timeline` (made, 3-D Secure or ' +
          'another wait for the tenant, outcome, refunds, disputes, when its funds can be paid out, its payout) and ' +
          'the webhook deliveries of its events. Needs `payments.read`.',
        tags: ['Payments'],
        params: Type.Object({ payment_id: IdString('pay', 'a payment') }),
        response: { 200: PaymentDetail, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const { payment_id } = request.params;
      const payment = await app.ctx.payments.listed(integratorId, payment_id);
      if (!payment) throw new ServiceError('not_found', `No payment ${payment_id}.`);
      const [refunds, events, payout] = await Promise.all([
        app.ctx.payments.refunds.forPayment(payment_id),
        app.ctx.webhooks.paymentEvents(integratorId, payment_id),
        app.ctx.payouts.paymentPayout(payment_id),
      ]);
      return {
        ...dashboardPaymentView(payment),
        refundable: formatPence(refundablePence(payment, refunds)),
        timeline: paymentTimeline(payment, refunds, events, payout, app.ctx.clock.now()),
        webhook_deliveries: events.map(webhookEventView),
      };
    },
  );
};
