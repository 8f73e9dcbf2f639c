import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { type BootstrapSecrets, bootstrapDeployment } from './bootstrap.ts';
import { FileDocumentStore } from './documents/storage.ts';
import { jobHandlers } from './jobs.ts';
import { RENT_REMINDERS_EVERY_MS, RENT_REMINDERS_JOB } from './ledger/reminders.ts';
import { systemClock } from './platform/clock/clock.ts';
import type { Config } from './platform/config/config.ts';
import { type Db, openDatabase } from './platform/db/db.ts';
import { migrate } from './platform/db/migrate.ts';
import { type PeriodicTicker, startPeriodicJob } from './platform/jobs/periodic.ts';
import { JOBS_CHANNEL } from './platform/jobs/queue.ts';
import { JOBS_PRUNE_EVERY_MS, JOBS_PRUNE_JOB } from './platform/jobs/retention.ts';
import { Worker } from './platform/jobs/worker.ts';
import { createLogger } from './platform/log/logger.ts';
import { schedulerRunJob } from './schedules/jobs.ts';
import { createServices, type Services } from './services.ts';

export interface Running {
  app?: FastifyInstance;
  worker?: Worker;
  secrets: BootstrapSecrets;
  stop(): Promise<void>;
}

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
  });
}

/** Beside every job worker: the scheduler run every 10 minutes and the prune of finished jobs every hour. */
function startTickers(db: Db, log: Logger): PeriodicTicker {
  const tickers = [
    startPeriodicJob(db, systemClock, log, schedulerRunJob()),
    startPeriodicJob(db, systemClock, log, {
      kind: JOBS_PRUNE_JOB,
      everyMs: JOBS_PRUNE_EVERY_MS,
      payload: () => ({}),
    }),
    startPeriodicJob(db, systemClock, log, {
      kind: RENT_REMINDERS_JOB,
      everyMs: RENT_REMINDERS_EVERY_MS,
      payload: () => ({}),
    }),
  ];
  return { stop: async () => void (await Promise.all(tickers.map((ticker) => ticker.stop()))) };
}

/** `rentpay serve`: HTTP, plus the job worker in the same process unless withWorker is false. */
export async function serve(config: Config, withWorker: boolean): Promise<Running> {
  const app = await buildApp(config);
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
  await app.listen({ port: config.port, host: config.host });
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

/** `rentpay worker`: jobs only, no HTTP. */
export async function runWorker(config: Config): Promise<Running> {
  const log = createLogger(config.logLevel);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(db);
  const services = createServices(config, db, systemClock, undefined, log);
  await services.documents.moveFromDisk(new FileDocumentStore(config.documentsDir), log);
  const worker = serviceWorker(config, db, log, services);
  worker.start();
  const ticker = startTickers(db, log);
  log.info({ worker: worker.name }, 'worker started');
  return {
    worker,
    secrets: {},
    async stop() {
      await ticker.stop();
      await worker.stop();
      await db.close();
    },
  };
}
