import type { FastifyPluginAsync } from 'fastify';
import { installApiDocument } from '../platform/http/openapi.ts';
import { registerRoutes } from '../platform/http/routes.ts';
import { operatorAuth } from './credentials.ts';
import { approvePayeeRoute } from './routes/approve-payee.ts';
import { cancelPayoutRunRoute } from './routes/cancel-payout-run.ts';
import { confirmPayoutRunRoute } from './routes/confirm-payout-run.ts';
import { createIntegratorRoute } from './routes/create-integrator.ts';
import { createPayoutRunRoute } from './routes/create-payout-run.ts';
import { enableWebhookEndpointRoute } from './routes/enable-webhook-endpoint.ts';
import { getIntegratorRoute } from './routes/get-integrator.ts';
import { getPaymentRoute } from './routes/get-payment.ts';
import { getPayoutRunRoute } from './routes/get-payout-run.ts';
import { getPayoutRunFileRoute } from './routes/get-payout-run-file.ts';
import { getWebhookEndpointRoute } from './routes/get-webhook-endpoint.ts';
import { getWebhookEventRoute } from './routes/get-webhook-event.ts';
import { listHeldPayoutsRoute } from './routes/list-held-payouts.ts';
import { listIntegratorsRoute } from './routes/list-integrators.ts';
import { listPaymentsRoute } from './routes/list-payments.ts';
import { listPayoutRunsRoute } from './routes/list-payout-runs.ts';
import { listWebhookEventsRoute } from './routes/list-webhook-events.ts';
import { reconcilePayoutsRoute } from './routes/reconcile-payouts.ts';
import { redeliverFailedWebhooksRoute } from './routes/redeliver-failed-webhooks.ts';
import { redeliverWebhookEventRoute } from './routes/redeliver-webhook-event.ts';
import { refundPaymentRoute } from './routes/refund-payment.ts';
import { reissueServerTokenRoute } from './routes/reissue-server-token.ts';
import { retryPendingWebhooksRoute } from './routes/retry-pending-webhooks.ts';
import { rotateWebhookSecretRoute } from './routes/rotate-webhook-secret.ts';
import { suspendIntegratorRoute } from './routes/suspend-integrator.ts';
import { unsuspendIntegratorRoute } from './routes/unsuspend-integrator.ts';
import { updateIntegratorRoute } from './routes/update-integrator.ts';

/** Every route of the Operator API but its document: `Authorization: Bearer <operator token>`. */
const authenticatedOperatorRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', operatorAuth(app.ctx.db, app.ctx.config.operatorToken, app.ctx.authFailures));
  await registerRoutes(app, [
    createIntegratorRoute,
    updateIntegratorRoute,
    listIntegratorsRoute,
    getIntegratorRoute,
    reissueServerTokenRoute,
    suspendIntegratorRoute,
    unsuspendIntegratorRoute,
    listPaymentsRoute,
    getPaymentRoute,
    refundPaymentRoute,
    listWebhookEventsRoute,
    getWebhookEventRoute,
    redeliverWebhookEventRoute,
    redeliverFailedWebhooksRoute,
    retryPendingWebhooksRoute,
    getWebhookEndpointRoute,
    enableWebhookEndpointRoute,
    rotateWebhookSecretRoute,
    createPayoutRunRoute,
    listPayoutRunsRoute,
    getPayoutRunRoute,
    getPayoutRunFileRoute,
    confirmPayoutRunRoute,
    cancelPayoutRunRoute,
    listHeldPayoutsRoute,
    approvePayeeRoute,
    reconcilePayoutsRoute,
  ]);
};

/**
 * The Operator API under /api/operator: the rentpay CLI is its client. Its OpenAPI document
 * (GET /api/operator/openapi.json) is public; every other route needs the operator token.
 */
export const operatorApi: FastifyPluginAsync = async (app) => {
  await installApiDocument(app, {
    decorator: 'operatorApiDocument',
    title: 'rentpay Operator API',
    description:
      'The API of whoever runs rentpay: create and configure integrators, recover from a leaked token, look at ' +
      'payments and refund them, follow and redeliver webhooks. The `rentpay` CLI (`rentpay integrators …`, ' +
      '`rentpay payments …`, `rentpay webhooks …`) is its client; call it directly to script what the CLI does.\n\n' +
      'Authenticate with `Authorization: Bearer <operator token>`: OPERATOR_TOKEN, or the token the first start ' +
      'printed when OPERATOR_TOKEN is not set.\n\n' +
      'Errors are JSON: `{"error", "detail"}`, or for invalid fields an object of dotted paths to messages.',
    publicUrl: app.ctx.config.publicUrl,
    security: [
      'OperatorToken',
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'The operator token: the value of OPERATOR_TOKEN, or without it the `rpo_…` token the first start printed.',
      },
    ],
    tags: [
      {
        name: 'Integrators',
        description: 'The platforms that use rentpay: their settings, tokens and status.',
      },
      { name: 'Payments', description: 'Every integrator’s payments, and refunds.' },
      {
        name: 'Payouts',
        description:
          'Payout runs of settled rent to landlords’ accounts, the bank file, and the reconciliation.',
      },
      {
        name: 'Webhooks',
        description: 'Webhook endpoints, the events recorded for them and their deliveries.',
      },
    ],
  });
  await app.register(authenticatedOperatorRoutes);
};
