import { documentFetchJob } from './documents/jobs/document-fetch.ts';
import { documentPurgeJob } from './documents/jobs/document-purge.ts';
import { retireServerTokenJob } from './integrators/jobs/retire-server-token.ts';
import { rentRemindersJob } from './ledger/jobs/rent-reminders.ts';
import { paymentExpireJob } from './payments/jobs/payment-expire.ts';
import { paymentReconcileJob } from './payments/jobs/payment-reconcile.ts';
import { paymentRefundJob } from './payments/jobs/payment-refund.ts';
import { paymentSettlementJob } from './payments/jobs/payment-settlement.ts';
import type { Config } from './platform/config/config.ts';
import { type AnyJobDefinition, jobHandler } from './platform/jobs/define.ts';
import type { JobHandler } from './platform/jobs/queue.ts';
import { jobsPruneJob } from './platform/jobs/retention.ts';
import { paymentNotificationJob } from './processors/jobs/payment-notification.ts';
import { sandboxSampleDocument } from './sandbox/sample-documents.ts';
import { scheduleActionExpireJob } from './schedules/jobs/schedule-action-expire.ts';
import { scheduleChargeJob } from './schedules/jobs/schedule-charge.ts';
import { schedulesRunJob } from './schedules/jobs/schedules-run.ts';
import type { Services } from './services.ts';
import { webhookDeliverJob } from './webhooks/jobs/webhook-deliver.ts';
import { webhookSecretEraseJob } from './webhooks/jobs/webhook-secret-erase.ts';

/** Every kind of job the service runs: workers claim only these, and the operations docs list them. */
export const JOBS: readonly AnyJobDefinition[] = [
  documentFetchJob,
  documentPurgeJob,
  jobsPruneJob,
  paymentExpireJob,
  paymentNotificationJob,
  paymentReconcileJob,
  paymentRefundJob,
  paymentSettlementJob,
  rentRemindersJob,
  retireServerTokenJob,
  scheduleActionExpireJob,
  scheduleChargeJob,
  schedulesRunJob,
  webhookDeliverJob,
  webhookSecretEraseJob,
];

/** The jobs every worker process enqueues once per period, beside its worker. */
export const PERIODIC_JOBS = JOBS.filter((job) => job.every !== undefined);

/** Each job kind's handler on the process's services (type-checked: each job gets the services it declares). */
export function jobHandlers(config: Config, services: Services): Record<string, JobHandler> {
  const store = services.documents.store;
  const handlers = [
    jobHandler(retireServerTokenJob, undefined),
    jobHandler(documentFetchJob, {
      store,
      allowPrivate: config.allowPrivateDocumentHosts,
      ...(config.serviceEnv === 'sandbox' ? { ownDocument: sandboxSampleDocument(config.publicUrl) } : {}),
    }),
    jobHandler(documentPurgeJob, store),
    jobHandler(paymentNotificationJob, services.payments),
    jobHandler(paymentReconcileJob, services.payments),
    jobHandler(paymentExpireJob, services.payments),
    jobHandler(paymentRefundJob, services.payments.refunds),
    jobHandler(paymentSettlementJob, services.payments.settlement),
    jobHandler(schedulesRunJob, services.scheduler),
    jobHandler(scheduleChargeJob, services.scheduler),
    jobHandler(scheduleActionExpireJob, (id: string) => services.payments.expireWaiting(id)),
    jobHandler(webhookDeliverJob, { allowPrivate: config.allowPrivateWebhookHosts }),
    jobHandler(webhookSecretEraseJob, undefined),
    jobHandler(rentRemindersJob, services.reminders),
    jobHandler(jobsPruneJob, config.jobRetentionDays * 86_400_000),
  ];
  const byKind = Object.fromEntries(handlers.map((handler) => [handler.kind, handler]));
  const missing = JOBS.filter((job) => !byKind[job.kind]).map((job) => job.kind);
  if (missing.length > 0) throw new Error(`no handler for job kinds ${missing.join(', ')}`);
  return byKind;
}
