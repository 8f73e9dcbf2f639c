import type { FastifyBaseLogger } from 'fastify';
import type { IntegratorService } from './integrators/service.ts';
import type { OnboardingService } from './onboarding/service.ts';
import type { PaymentService } from './payments/service.ts';
import type { Clock } from './platform/clock/clock.ts';
import type { Config } from './platform/config/config.ts';
import type { Db } from './platform/db/db.ts';
import type { PaymentProcessor } from './processors/processor.ts';
import type { SessionService } from './sessions/service.ts';

/** What every route and job handler may use. Built once per app by buildApp. */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  integrators: IntegratorService;
  onboarding: OnboardingService;
  sessions: SessionService;
  processor: PaymentProcessor;
  payments: PaymentService;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
