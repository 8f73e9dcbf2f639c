import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { type BootstrapSecrets, bootstrapDeployment } from './bootstrap.ts';
import { FileDocumentStore } from './documents/storage.ts';
import { jobHandlers, PERIODIC_JOBS } from './jobs.ts';
import { systemClock } from './platform/clock/clock.ts';
import type { Config } from './platform/config/config.ts';
import { starting } from './platform/config/startup-errors.ts';
import { type Db, databaseOptions, openDatabase } from './platform/db/db.ts';
import { migrate } from './platform/db/migrate.ts';
import { installErrorHandling } from './platform/http/errors.ts';
import { type PeriodicTicker, startPeriodicJob } from './platform/jobs/periodic.ts';
import { JOBS_CHANNEL } from './platform/jobs/queue.ts';
import { Worker } from './platform/jobs/worker.ts';
import { createLogger } from './platform/log/logger.ts';
import { installMetrics } from './platform/metrics/metrics.ts';
import { createServices, type Services } from './services.ts';
import { installWebhookMetrics } from './webhooks/metrics.ts';

export interface Running {
  app?: FastifyInstance;
  worker?: Worker;
  secrets: BootstrapSecrets;
  stop(): Promise<void>;
}

/**
 * The service's worker holds 8 times its concurrency, claimed ahead: enough ready deliveries to cover a claim's and
 * a read's round trips at full speed (with 2, a one-integrator backlog's in-flight places stood empty a fifth of the
 * time on 2 cores, waiting for the next claim to be read).
 */
const CLAIM_AHEAD = 8;

/** The job worker of `serve` and `worker`: every job kind, woken by NOTIFY, as configured. */
export function serviceWorker(config: Config, db: Db, log: Logger, services: Services): Worker {
  return new Worker({
    db,
    clock: systemClock,
    log,
    handlers: jobHandlers(config, services),
    concurrency: config.workerConcurrency,
    perKey: config.workerConcurrencyPerIntegrator,
    pollIntervalMs: config.workerPollIntervalMs,
    wakeChannel: JOBS_CHANNEL,
    claimAhead: CLAIM_AHEAD,
  });
}

/** Beside every job worker: the periodic jobs (scheduler run, reminders, prune), each once per period in all. */
function startTickers(db: Db, log: Logger): PeriodicTicker {
  const tickers = PERIODIC_JOBS.map((job) => startPeriodicJob(db, systemClock, log, job));
  return { stop: async () => void (await Promise.all(tickers.map((ticker) => ticker.stop()))) };
}

/** `rentpay serve`: HTTP, plus the job worker in the same process unless withWorker is false. */
export async function serve(config: Config, withWorker: boolean): Promise<Running> {
  const app = await starting(config, () => buildApp(config));
  // Listening comes before the first start's secrets are made: a port in use must not lose them unprinted.
  try {
    await starting({ port: config.port, host: config.host }, () =>
      app.listen({ port: config.port, host: config.host }),
    );
  } catch (error) {
    await app.close();
    throw error;
  }
  const secrets = await bootstrapDeployment(app);
  await app.ctx.documents.moveFromDisk(
    new FileDocumentStore(config.documentsDir),
    app.log as unknown as Logger,
  );
  let worker: Worker | undefined;
  let ticker: PeriodicTicker | undefined;
  if (withWorker) {
    worker = serviceWorker(config, app.ctx.db, app.log as unknown as Logger, app.ctx);
    worker.start();
    ticker = startTickers(app.ctx.db, app.log as unknown as Logger);
  }
  return {
    app,
    worker,
    secrets,
    async stop() {
      await ticker?.stop();
      await worker?.stop();
      await app.close();
    },
  };
}

/**
 * The worker's own HTTP: /healthz (the process answers), /readyz (the database answers and the job loop turns)
 * and /metrics (the job queue and the webhook attempts this process made), for a load balancer and Prometheus.
 */
async function workerHttp(config: Config, db: Db, worker: Worker, log: Logger): Promise<FastifyInstance> {
  // Probes and scrapes every few seconds: their requests are not logged, only warnings and errors.
  const level = log.levelVal > 40 ? log.level : 'warn';
  const app = Fastify({ loggerInstance: log.child({}, { level }) as FastifyBaseLogger });
  installErrorHandling(app);
  const registry = installMetrics(app, db, systemClock, config.metricsToken);
  installWebhookMetrics(registry, db, systemClock);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const loop = worker.alive();
    if (!loop.fresh) {
      return reply.code(503).send({
        status: 'unavailable',
        detail: `The job loop has not turned for ${loop.lastBeatSecondsAgo} s.`,
      });
    }
    try {
      await db.query('SELECT 1');
    } catch {
      return reply.code(503).send({ status: 'unavailable', detail: 'The database is not reachable.' });
    }
    return { status: 'ready', worker: worker.name };
  });
  return app;
}

/** `rentpay worker`: jobs, with HTTP only for health checks and metrics. */
export async function runWorker(config: Config): Promise<Running> {
  const log = createLogger(config.logLevel);
  const db = await starting(config, async () => {
    const opened = await openDatabase(databaseOptions(config));
    try {
      await migrate(opened);
    } catch (error) {
      await opened.close();
      throw error;
    }
    return opened;
  });
  const services = createServices(config, db, systemClock, undefined, log);
  await services.documents.moveFromDisk(new FileDocumentStore(config.documentsDir), log);
  const worker = serviceWorker(config, db, log, services);
  const http = await workerHttp(config, db, worker, log);
  try {
    await starting({ port: config.port, host: config.host }, () =>
      http.listen({ port: config.port, host: config.host }),
    );
  } catch (error) {
    await http.close();
    await db.close();
    throw error;
  }
  worker.start();
  const ticker = startTickers(db, log);
  log.info({ worker: worker.name, address: http.server.address() }, 'worker started');
  return {
    app: http,
    worker,
    secrets: {},
    async stop() {
      await ticker.stop();
      await worker.stop();
      await http.close();
      await db.close();
    },
  };
}
