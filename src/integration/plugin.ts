import type { FastifyPluginAsync } from 'fastify';
import { getDocumentRoute } from '../documents/routes/get-document.ts';
import { serverTokenAuth } from '../integrators/auth.ts';
import { getIntegratorRoute } from '../integrators/routes/get-integrator.ts';
import { rotateTokenRoute } from '../integrators/routes/rotate-token.ts';
import { getLedgerRoute } from '../ledger/routes/get-ledger.ts';
import { runRemindersRoute } from '../ledger/routes/run-reminders.ts';
import { onboardRoute } from '../onboarding/routes/onboard.ts';
import { integrationPaymentRoutes } from '../payments/routes/integration.ts';
import { integrationPayoutRoutes } from '../payouts/routes/integration.ts';
import { ServiceError } from '../platform/errors.ts';
import { integrationScheduleRoutes } from '../schedules/routes/integration.ts';
import { runSchedulesRoute } from '../schedules/routes/run-schedules.ts';
import { userLoginRoute } from '../sessions/routes/user-login.ts';
import { integrationWebhookEndpointRoutes } from '../webhooks/routes/integration-endpoint.ts';
import { integrationEventRoutes } from '../webhooks/routes/integration-events.ts';
import { getSessionRoute } from './routes/get-session.ts';

/**
 * The Integration API under /api/third-party. Every route here needs a server token and counts against the
 * integrator's rate limit: `rate_limit_burst` requests per window of burst/rate seconds, which allows the
 * burst at once and the per-second rate on average.
 */
export const integrationApi: FastifyPluginAsync = async (app) => {
  app.addHook(
    'onRequest',
    serverTokenAuth(app.ctx.integrators, app.ctx.config.serviceEnv, app.ctx.authFailures),
  );
  app.addHook(
    'onRequest',
    app.rateLimit({
      keyGenerator: (request) => request.integrator.id,
      max: (request) => request.integrator.rate_limit_burst,
      timeWindow: (request) =>
        Math.round((request.integrator.rate_limit_burst / request.integrator.rate_limit_per_second) * 1000),
      errorResponseBuilder: (request, context) => {
        const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
        return new ServiceError(
          'rate_limited',
          `Rate limit exceeded: ${request.integrator.rate_limit_per_second} requests per second sustained, bursts of ` +
            `${request.integrator.rate_limit_burst}. Retry after ${retryAfter} s (Retry-After); for a higher limit, ask ` +
            'the operator.',
          { 'retry-after': String(retryAfter) },
        );
      },
    }),
  );
  await app.register(rotateTokenRoute);
  await app.register(getIntegratorRoute);
  await app.register(onboardRoute);
  await app.register(userLoginRoute);
  await app.register(getSessionRoute);
  await app.register(getDocumentRoute);
  await app.register(getLedgerRoute);
  await app.register(integrationPayoutRoutes);
  await app.register(integrationScheduleRoutes);
  await app.register(integrationPaymentRoutes);
  await app.register(integrationWebhookEndpointRoutes);
  await app.register(integrationEventRoutes);
  // The sandbox test clock does not exist in production.
  if (app.ctx.config.serviceEnv === 'sandbox') {
    await app.register(runSchedulesRoute);
    await app.register(runRemindersRoute);
  }
};
