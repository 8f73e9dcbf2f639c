import type { FastifyPluginAsync } from 'fastify';
import type { StripeConfig } from '../../platform/config/config.ts';
import { stripeReturnPage } from './routes/return-page.ts';
import { stripeWebhookRoute } from './routes/webhook.ts';

export const APPLE_PAY_DOMAIN_PATH = '/.well-known/apple-developer-merchantid-domain-association';

/**
 * The Stripe processor's own routes: its event endpoint, the page redirect methods return to, and Apple Pay's
 * domain-association file when one is configured (Apple fetches it to verify the domain).
 */
export function stripeProcessorRoutes(config: StripeConfig): FastifyPluginAsync {
  return async (app) => {
    await app.register(stripeWebhookRoute(config));
    await app.register(stripeReturnPage);
    const association = config.applePayDomainAssociation;
    if (association !== undefined) {
      app.get(APPLE_PAY_DOMAIN_PATH, { schema: { hide: true } }, async (_request, reply) =>
        reply
          .type('text/plain; charset=utf-8')
          .header('cache-control', 'public, max-age=3600')
          .send(association),
      );
    }
  };
}
