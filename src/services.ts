import type { Logger } from 'pino';
import { AuditService } from './audit/log.ts';
import { documentCipherFor } from './documents/keys.ts';
import { DocumentService } from './documents/service.ts';
import { DatabaseDocumentStore } from './documents/storage.ts';
import { IntegratorService } from './integrators/service.ts';
import { ReminderService } from './ledger/reminders.ts';
import { LedgerService } from './ledger/service.ts';
import { OnboardingService } from './onboarding/service.ts';
import { TenantDirectory } from './onboarding/tenants.ts';
import { PaymentService } from './payments/service.ts';
import { PayoutService } from './payouts/service.ts';
import { PeopleService } from './people/service.ts';
import { DashboardSessions } from './people/sessions.ts';
import { SignInService } from './people/sign-in.ts';
import type { Clock } from './platform/clock/clock.ts';
import type { Config } from './platform/config/config.ts';
import type { Db } from './platform/db/db.ts';
import { SystemHealth } from './platform/jobs/health.ts';
import { createPaymentProcessor } from './processors/create.ts';
import type { PaymentProcessor } from './processors/processor.ts';
import { ReceiptService } from './receipts/service.ts';
import { Scheduler } from './schedules/scheduler.ts';
import { ScheduleService } from './schedules/service.ts';
import { settleWaitingCharge } from './schedules/waiting-charges.ts';
import { SessionService } from './sessions/service.ts';
import { WebhookService } from './webhooks/service.ts';

/** The domain services, built once per process and shared by its routes and its job handlers. */
export interface Services {
  audit: AuditService;
  documents: DocumentService;
  integrators: IntegratorService;
  /** The job queue, the database and the workers' heartbeats, as the operator console shows them. */
  health: SystemHealth;
  ledger: LedgerService;
  onboarding: OnboardingService;
  /** A platform's tenants as its staff look them up (the dashboard). */
  tenants: TenantDirectory;
  sessions: SessionService;
  processor: PaymentProcessor;
  reminders: ReminderService;
  payments: PaymentService;
  people: PeopleService;
  dashboardSessions: DashboardSessions;
  signIn: SignInService;
  payouts: PayoutService;
  /** Receipts of payments and rent statements of tenancies (PDF). */
  receipts: ReceiptService;
  schedules: ScheduleService;
  scheduler: Scheduler;
  webhooks: WebhookService;
}

/**
 * Wires the services on one database and clock; `processor` replaces the configured one (a test's stand-in), `log`
 * is where the processor reports what its acquirer refused.
 */
export function createServices(
  config: Config,
  db: Db,
  clock: Clock,
  processor?: PaymentProcessor,
  log?: Logger,
): Services {
  const paymentProcessor = processor ?? createPaymentProcessor(config, db, clock, log);
  const payments = new PaymentService(db, clock, paymentProcessor, settleWaitingCharge);
  const ledger = new LedgerService(db, clock);
  const dashboardSessions = new DashboardSessions(db, clock);
  const documents = new DocumentService(
    db,
    clock,
    new DatabaseDocumentStore(db, clock, documentCipherFor(config)),
  );
  const schedules = new ScheduleService(db, clock, (q, tenancyId) => ledger.rentPaidThrough(q, tenancyId));
  return {
    audit: new AuditService(db),
    documents,
    integrators: new IntegratorService(db, clock, config.serviceEnv),
    health: new SystemHealth(db, clock),
    ledger,
    onboarding: new OnboardingService(db, clock),
    tenants: new TenantDirectory(db, ledger, schedules, documents),
    sessions: new SessionService(db, clock, config.userTokenTtlSeconds, config.sessionTtlSeconds),
    processor: paymentProcessor,
    reminders: new ReminderService(db, clock),
    payments,
    people: new PeopleService(db, clock, config.publicUrl, dashboardSessions),
    dashboardSessions,
    signIn: new SignInService(db, clock, dashboardSessions, config.publicUrl),
    payouts: new PayoutService(db, clock, config.serviceEnv),
    receipts: new ReceiptService(db, clock, payments, ledger),
    schedules,
    scheduler: new Scheduler(db, clock, paymentProcessor, (id) => payments.expireWaiting(id)),
    webhooks: new WebhookService(db, clock),
  };
}
