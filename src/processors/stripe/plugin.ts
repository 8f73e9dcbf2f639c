import type { FastifyPluginAsync } from 'fastify';
import type { StripeConfig } from '../../platform/config/config.ts';
import { stripeReturnPage } from './routes/return-page.ts';
import { stripeWebhookRoute } from './routes/webhook.ts';

/** The Stripe processor's own routes: its event endpoint and the page redirect methods return to. */
export function stripeProcessorRoutes(config: StripeConfig): FastifyPluginAsync {
  return async (app) => {
    await app.register(stripeWebhookRoute(config));
    await app.register(stripeReturnPage);
  };
}
