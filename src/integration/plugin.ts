import type { FastifyPluginAsync } from 'fastify';
import { serverTokenAuth } from '../integrators/auth.ts';
import { ServiceError } from '../platform/errors.ts';
import { registerRoutes } from '../platform/http/routes.ts';
import { cancelScheduleRoute } from './routes/cancel-schedule.ts';
import { getDocumentRoute } from './routes/get-document.ts';
import { getIntegratorRoute } from './routes/get-integrator.ts';
import { getLedgerRoute } from './routes/get-ledger.ts';
import { getPaymentReceiptRoute } from './routes/get-payment-receipt.ts';
import { getSessionRoute } from './routes/get-session.ts';
import { getStatementRoute } from './routes/get-statement.ts';
import { getWebhookEndpointRoute } from './routes/get-webhook-endpoint.ts';
import { listAuditLogRoute } from './routes/list-audit-log.ts';
import { listEventsRoute } from './routes/list-events.ts';
import { listPaymentsRoute } from './routes/list-payments.ts';
import { listPayoutsRoute } from './routes/list-payouts.ts';
import { listSchedulesRoute } from './routes/list-schedules.ts';
import { onboardUsersRoute } from './routes/onboard-users.ts';
import { pauseScheduleRoute } from './routes/pause-schedule.ts';
import { redeliverEventRoute } from './routes/redeliver-event.ts';
import { refundPaymentRoute } from './routes/refund-payment.ts';
import { resumeScheduleRoute } from './routes/resume-schedule.ts';
import { rotateTokenRoute } from './routes/rotate-token.ts';
import { rotateWebhookSecretRoute } from './routes/rotate-webhook-secret.ts';
import { runRemindersRoute } from './routes/run-reminders.ts';
import { runSchedulesRoute } from './routes/run-schedules.ts';
import { sendTestWebhookRoute } from './routes/send-test-webhook.ts';
import { setWebhookEndpointRoute } from './routes/set-webhook-endpoint.ts';
import { userLoginRoute } from './routes/user-login.ts';

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
  await registerRoutes(app, [
    rotateTokenRoute,
    getIntegratorRoute,
    listAuditLogRoute,
    onboardUsersRoute,
    userLoginRoute,
    getSessionRoute,
    getDocumentRoute,
    getLedgerRoute,
    getStatementRoute,
    listPayoutsRoute,
    listSchedulesRoute,
    pauseScheduleRoute,
    resumeScheduleRoute,
    cancelScheduleRoute,
    listPaymentsRoute,
    refundPaymentRoute,
    getPaymentReceiptRoute,
    getWebhookEndpointRoute,
    setWebhookEndpointRoute,
    rotateWebhookSecretRoute,
    sendTestWebhookRoute,
    listEventsRoute,
    redeliverEventRoute,
  ]);
  // The sandbox test clock does not exist in production.
  if (app.ctx.config.serviceEnv === 'sandbox') {
    await registerRoutes(app, [runSchedulesRoute, runRemindersRoute]);
  }
};
