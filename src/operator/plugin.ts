import type { FastifyPluginAsync } from 'fastify';
import { operatorAuth } from './credentials.ts';
import { createIntegratorRoute } from './routes/integrators-create.ts';
import { readIntegratorsRoutes } from './routes/integrators-read.ts';
import { integratorRecoveryRoutes } from './routes/integrators-recovery.ts';
import { updateIntegratorRoute } from './routes/integrators-update.ts';
import { getPaymentRoute } from './routes/payments-get.ts';
import { listPaymentsRoute } from './routes/payments-list.ts';
import { refundPaymentRoute } from './routes/payments-refund.ts';
import { webhookEndpointRoutes } from './routes/webhooks-endpoint.ts';
import { webhookEventRoutes } from './routes/webhooks-events.ts';

/** The Operator API under /api/operator: the rentpay CLI is its client. */
export const operatorApi: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', operatorAuth(app.ctx.db, app.ctx.config.operatorToken));
  await app.register(createIntegratorRoute);
  await app.register(updateIntegratorRoute);
  await app.register(readIntegratorsRoutes);
  await app.register(integratorRecoveryRoutes);
  await app.register(listPaymentsRoute);
  await app.register(getPaymentRoute);
  await app.register(refundPaymentRoute);
  await app.register(webhookEventRoutes);
  await app.register(webhookEndpointRoutes);
};
