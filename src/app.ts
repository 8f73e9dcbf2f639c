import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import secureJson from 'secure-json-parse';
import { clientApi } from './client/plugin.ts';
import { dashboardPages } from './dashboard/pages.ts';
import { dashboardApi } from './dashboard/plugin.ts';
import { sessionCookieFor } from './dashboard/session-auth.ts';
import { healthRoutes } from './health/routes.ts';
import { installOpenApi } from './integration/openapi.ts';
import { integrationApi } from './integration/plugin.ts';
import { operatorApi } from './operator/plugin.ts';
import { hostedPage } from './page/plugin.ts';
import { installPaymentMetrics } from './payments/metrics.ts';
import { type Clock, systemClock } from './platform/clock/clock.ts';
import type { Config } from './platform/config/config.ts';
import { type Db, databaseOptions, openDatabase } from './platform/db/db.ts';
import { migrate } from './platform/db/migrate.ts';
import { ServiceError } from './platform/errors.ts';
import { AuthFailureLimiter, installAuthFailureLimit } from './platform/http/auth-failures.ts';
import { clockedRateLimitStore } from './platform/http/clocked-rate-limit-store.ts';
import { installErrorHandling } from './platform/http/errors.ts';
import { installInputHygiene } from './platform/http/input-hygiene.ts';
import { installSerialization } from './platform/http/serialization.ts';
import { installValidation } from './platform/http/validation.ts';
import { randomBase62 } from './platform/ids.ts';
import { createLogger } from './platform/log/logger.ts';
import { installMetrics } from './platform/metrics/metrics.ts';
import { sandboxProcessorRoutes } from './processors/sandbox/plugin.ts';
import { SandboxProcessor } from './processors/sandbox/processor.ts';
import { stripeProcessorRoutes } from './processors/stripe/plugin.ts';
import { sandboxDocuments } from './sandbox/sample-documents.ts';
import { sdkFiles } from './sdk/plugin.ts';
import { createServices, type Services } from './services.ts';
import { installLoginMetrics } from './sessions/metrics.ts';
import { installWebhookMetrics } from './webhooks/metrics.ts';
import './app-context.ts';

export const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
  /** An already open database; the app then leaves closing it to the caller. */
  db?: Db;
  /** Skip running migrations at start (the caller has run them). */
  skipMigrations?: boolean;
  /** Services already wired on `db` (e.g. with a stand-in processor, shared with a test's job worker). */
  services?: Services;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The one Fastify app: `rentpay serve`, the tests and the benchmarks all build it here. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? (await openDatabase(databaseOptions(config)));
  try {
    if (!options.skipMigrations) await migrate(db);
  } catch (error) {
    if (!options.db) await db.close();
    throw error;
  }

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // request.ip is the client behind the proxies named here (rate limits per address depend on it).
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`;
    },
    routerOptions: { ignoreTrailingSlash: false },
    ajv: { customOptions: { allErrors: true } },
    // Errors raised before routing (bad percent-encoding, an over-long path segment) get the `{error, detail}` shape too.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode === 414 ? 414 : 400;
      (reply as FastifyReply).code(status).send({
        error: 'invalid_request',
        // The URL itself is not echoed: its query string may carry a token.
        detail:
          status === 414
            ? 'A path segment is longer than the router accepts (100 characters).'
            : 'The request path is not valid (for example, broken percent-encoding).',
      });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const services = options.services ?? createServices(config, db, clock, undefined, logger);
  const { processor } = services;
  const stopWatchingAuth = await services.integrators.watchAuthChanges();
  // Without an offline queue a Redis command fails at once while Redis is unreachable, instead of waiting.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        connectTimeout: 2_000,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
      })
    : undefined;
  const authFailures = new AuthFailureLimiter(clock, config.authFailureLimit, redis);
  app.decorate('ctx', {
    ...services,
    config,
    db,
    clock,
    log: app.log,
    authFailures,
    dashboardCookie: sessionCookieFor(config),
  });

  installValidation(app);
  installSerialization(app);
  installInputHygiene(app);
  installErrorHandling(app);
  // JSON only: any other content type (text/plain, forms) is refused with 400 unsupported_content_type.
  app.removeAllContentTypeParsers();
  // Empty bodies are allowed (several endpoints take an optional body); anything else must be valid JSON.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch (error) {
      done(
        new ServiceError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`),
        undefined,
      );
    }
  });
  // Callback hooks on every request: an async one costs each request a promise and a turn of the microtask queue.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  redis?.on('error', (error: Error) => app.log.warn({ err: error.message }, 'redis unavailable'));
  // Without an offline queue a request that arrives before the connection is up would pass unlimited, so the
  // app waits for it (briefly: a Redis that is down must not stop the API from starting).
  if (redis) await redisReady(redis, 2_000);
  installAuthFailureLimit(app, authFailures);
  await app.register(rateLimit, {
    global: false,
    // Redis down must not take the API down with it: requests then pass unlimited and a warning is logged.
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'rentpay-ratelimit-' } : { store: clockedRateLimitStore(clock) }),
  });

  const registry = installMetrics(app, db, clock, config.metricsToken);
  installWebhookMetrics(registry, db, clock);
  installLoginMetrics(registry);
  installPaymentMetrics(registry);
  await installOpenApi(app, config.publicUrl);
  await app.register(healthRoutes);
  await app.register(integrationApi, { prefix: '/api/third-party' });
  await app.register(operatorApi, { prefix: '/api/operator' });
  await app.register(clientApi, { prefix: '/api/client' });
  await app.register(dashboardApi, { prefix: '/api/dashboard' });
  await app.register(
    hostedPage({
      processorOrigin: new URL(config.publicUrl).origin,
      ...(config.paymentProcessor === 'stripe' && config.stripe ? { stripeJsUrl: config.stripe.jsUrl } : {}),
    }),
  );
  await app.register(sdkFiles());
  await app.register(dashboardPages());
  if (config.serviceEnv === 'sandbox') await app.register(sandboxDocuments);
  if (config.serviceEnv === 'sandbox') {
    // The example integrator (plain JavaScript beside the service, not part of it) is loaded only here.
    const [demo, example] = await Promise.all([
      import('./demo/plugin.ts'),
      import('../examples/integrator/handler.mjs'),
    ]);
    await app.register(demo.default, { createIntegratorHandler: example.createIntegratorHandler });
  }
  if (config.serviceEnv === 'sandbox' && processor instanceof SandboxProcessor) {
    await app.register(sandboxProcessorRoutes(processor));
  }
  if (config.paymentProcessor === 'stripe' && config.stripe) {
    await app.register(stripeProcessorRoutes(config.stripe));
  }

  app.addHook('onClose', async () => {
    redis?.disconnect();
    await stopWatchingAuth();
    if (!options.db) await db.close();
  });
  return app;
}

function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('error', done);
  });
}
