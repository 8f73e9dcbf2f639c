import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { assertNotSuspended } from '../integrators/auth.ts';
import { SERVER_TOKEN_PREFIX, USER_SESSION_TOKEN_PREFIX } from '../integrators/tokens.ts';
import { ServiceError } from '../platform/errors.ts';
import { parseAuthorization } from '../platform/http/auth.ts';
import { ERROR_STATUS } from '../platform/http/errors.ts';
import { installApiDocument } from '../platform/http/openapi.ts';
import { registerRoutes } from '../platform/http/routes.ts';
import type { ClientContext } from '../sessions/service.ts';
import { cancelPaymentRoute } from './routes/cancel-payment.ts';
import { cancelScheduleRoute } from './routes/cancel-schedule.ts';
import { confirmPaymentRoute } from './routes/confirm-payment.ts';
import { createPaymentRoute } from './routes/create-payment.ts';
import { createScheduleRoute } from './routes/create-schedule.ts';
import { deleteSavedCardRoute } from './routes/delete-saved-card.ts';
import { extendSessionRoute } from './routes/extend-session.ts';
import { getPaymentRoute } from './routes/get-payment.ts';
import { getPaymentReceiptRoute } from './routes/get-payment-receipt.ts';
import { getSavedCardRoute } from './routes/get-saved-card.ts';
import { getSessionRoute } from './routes/get-session.ts';
import { listSavedCardsRoute } from './routes/list-saved-cards.ts';
import { listSchedulesRoute } from './routes/list-schedules.ts';
import { pauseScheduleRoute } from './routes/pause-schedule.ts';
import { previewScheduleRoute } from './routes/preview-schedule.ts';
import { resumeScheduleRoute } from './routes/resume-schedule.ts';
import { saveCardRoute } from './routes/save-card.ts';
import { setDefaultSavedCardRoute } from './routes/set-default-saved-card.ts';

declare module 'fastify' {
  interface FastifyRequest {
    client: ClientContext;
  }
}

const BEARER = { 'www-authenticate': 'Bearer' };

/** Every route of the Client API but its document: authenticated, then rate limited per session. */
const authenticatedClientRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const parsed = parseAuthorization(request.headers.authorization);
    if (parsed?.scheme.toLowerCase() !== 'bearer') {
      throw new ServiceError('unauthorized', 'Send "Authorization: Bearer <user session token>".', BEARER);
    }
    const token = parsed.credentials;
    if (Object.values(SERVER_TOKEN_PREFIX).some((prefix) => token.startsWith(prefix))) {
      throw new ServiceError(
        'unauthorized',
        'This is a server token, which must never reach a browser. The Client API takes a user session token from user-login.',
        BEARER,
      );
    }
    if (!token.startsWith(USER_SESSION_TOKEN_PREFIX)) {
      throw new ServiceError('unauthorized', 'Invalid user session token.', BEARER);
    }
    app.ctx.authFailures.assertMayLookUp(request.ip);
    try {
      request.client = await app.ctx.sessions.authenticateClient(token);
    } catch (error) {
      if (error instanceof ServiceError && ERROR_STATUS[error.code] === 401)
        throw new ServiceError(error.code, error.detail, BEARER);
      throw error;
    }
    assertNotSuspended(request.client.integrator);
  });
  // Per session (shared across nodes through Redis when REDIS_URL is set), after authentication.
  const { burst, windowMs } = app.ctx.config.clientRateLimit;
  const perSecond = Math.round((burst * 1000) / windowMs);
  app.addHook(
    'onRequest',
    app.rateLimit({
      keyGenerator: (request) => request.client.session.id,
      max: burst,
      timeWindow: windowMs,
      errorResponseBuilder: (_request, context) => {
        const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
        return new ServiceError(
          'rate_limited',
          `Too many requests for this payment session: ${perSecond} per second sustained, ` +
            `bursts of ${burst}. Retry after ${retryAfter} s.`,
          { 'retry-after': String(retryAfter) },
        );
      },
    }),
  );
  await registerRoutes(app, [
    getSessionRoute,
    extendSessionRoute,
    createPaymentRoute,
    getPaymentRoute,
    getPaymentReceiptRoute,
    cancelPaymentRoute,
    confirmPaymentRoute,
    listSavedCardsRoute,
    getSavedCardRoute,
    saveCardRoute,
    deleteSavedCardRoute,
    setDefaultSavedCardRoute,
    listSchedulesRoute,
    previewScheduleRoute,
    createScheduleRoute,
    pauseScheduleRoute,
    resumeScheduleRoute,
    cancelScheduleRoute,
  ]);
};

/**
 * The Client API under /api/client: the hosted page and the SDK, with `Authorization: Bearer <user session token>`.
 * Its OpenAPI document (GET /api/client/openapi.json) is public; every other route authenticates.
 */
export const clientApi: FastifyPluginAsync = async (app) => {
  await installApiDocument(app, {
    decorator: 'clientApiDocument',
    title: 'rentpay Client API',
    description:
      'The API of the hosted payment page and the browser SDK, called from the tenant’s browser. Most platforms ' +
      'never call it themselves: the page and the SDK do. It is documented for those who build their own payment ' +
      'screen.\n\n' +
      'Authenticate with `Authorization: Bearer <user session token>`: the `token` your server got from ' +
      '`POST /api/third-party/user-login/`. A server token is refused here (it must never reach a browser). Each ' +
      'token reaches one payment session: its tenant, tenancy, payments, saved cards and recurring schedules. ' +
      'Requests are rate limited per session (429 with Retry-After).\n\n' +
      'Errors are JSON: `{"error", "detail"}`, or for invalid fields an object of dotted paths to messages.',
    publicUrl: app.ctx.config.publicUrl,
    security: [
      'UserSessionToken',
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'The user session token (`token`) from user-login on the Integration API: `Bearer rp_ust_…`. It lapses ' +
          'with its session; a server token is refused.',
      },
    ],
    tags: [
      { name: 'Session', description: 'The payment session the token belongs to: what the page shows.' },
      {
        name: 'Payments',
        description: 'Paying the session, and following a payment through 3DS or a provider.',
      },
      {
        name: 'Saved cards',
        description: 'The tenant’s saved cards (when the integrator has them enabled).',
      },
      {
        name: 'Recurring rent',
        description: 'Schedules that charge a saved card on each rent due date (when enabled).',
      },
    ],
  });
  await app.register(authenticatedClientRoutes);
};
