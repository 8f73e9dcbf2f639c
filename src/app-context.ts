import type { FastifyBaseLogger } from 'fastify';
import type { SessionCookie } from './dashboard/session-auth.ts';
import type { Clock } from './platform/clock/clock.ts';
import type { Config } from './platform/config/config.ts';
import type { Db } from './platform/db/db.ts';
import type { AuthFailureLimiter } from './platform/http/auth-failures.ts';
import type { Services } from './services.ts';

/** What every route may use: the services (built once per app by buildApp) and the plumbing they run on. */
export interface AppContext extends Services {
  config: Config;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Failed authentications per client address: checked before any token is looked up. */
  authFailures: AuthFailureLimiter;
  /** The dashboard's session cookie: its name and whether it is Secure. */
  dashboardCookie: SessionCookie;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
