import type { FastifyPluginAsync } from 'fastify';
import { installApiDocument } from '../platform/http/openapi.ts';
import { operatorAuth } from './credentials.ts';
import { createIntegratorRoute } from './routes/integrators-create.ts';
import { readIntegratorsRoutes } from './routes/integrators-read.ts';
import { integratorRecoveryRoutes } from './routes/integrators-recovery.ts';
import { updateIntegratorRoute } from './routes/integrators-update.ts';
import { getPaymentRoute } from './routes/payments-get.ts';
import { listPaymentsRoute } from './routes/payments-list.ts';
import { refundPaymentRoute } from './routes/payments-refund.ts';
import { operatorPayoutRoutes } from './routes/payouts.ts';
import { webhookEndpointRoutes } from './routes/webhooks-endpoint.ts';
import { webhookEventRoutes } from './routes/webhooks-events.ts';

/** Every route of the Operator API but its document: `Authorization: Bearer <operator token>`. */
const authenticatedOperatorRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', operatorAuth(app.ctx.db, app.ctx.config.operatorToken, app.ctx.authFailures));
  await app.register(createIntegratorRoute);
  await app.register(updateIntegratorRoute);
  await app.register(readIntegratorsRoutes);
  await app.register(integratorRecoveryRoutes);
  await app.register(listPaymentsRoute);
  await app.register(getPaymentRoute);
  await app.register(refundPaymentRoute);
  await app.register(webhookEventRoutes);
  await app.register(webhookEndpointRoutes);
  await app.register(operatorPayoutRoutes);
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
