import { DOCUMENT_FETCH_JOB, documentFetchHandler } from './documents/fetch-job.ts';
import { DOCUMENT_PURGE_JOB, documentPurgeHandler } from './documents/purge-job.ts';
import { RETIRE_SERVER_TOKEN_JOB, retireServerToken } from './integrators/server-tokens.ts';
import { RENT_REMINDERS_JOB, rentRemindersHandler } from './ledger/reminders.ts';
import { PAYMENT_EXPIRE_JOB, PAYMENT_RECONCILE_JOB } from './payments/create.ts';
import {
  paymentExpireHandler,
  paymentNotificationHandler,
  paymentReconcileHandler,
  paymentRefundHandler,
} from './payments/jobs.ts';
import { PAYMENT_REFUND_JOB } from './payments/refunds.ts';
import { PAYMENT_SETTLEMENT_JOB, paymentSettlementHandler } from './payments/settlement.ts';
import type { Config } from './platform/config/config.ts';
import type { JobHandler } from './platform/jobs/queue.ts';
import { JOBS_PRUNE_JOB, jobsPruneHandler } from './platform/jobs/retention.ts';
import { PAYMENT_NOTIFICATION_JOB } from './processors/processor.ts';
import { sandboxSampleDocument } from './sandbox/sample-documents.ts';
import { scheduleActionExpireHandler, scheduleChargeHandler, schedulesRunHandler } from './schedules/jobs.ts';
import { SCHEDULE_ACTION_EXPIRE_JOB, SCHEDULE_CHARGE_JOB, SCHEDULES_RUN_JOB } from './schedules/scheduler.ts';
import type { Services } from './services.ts';
import { WEBHOOK_DELIVER_JOB, webhookDeliveryHandler } from './webhooks/delivery-job.ts';
import { WEBHOOK_SECRET_ERASE_JOB, webhookSecretEraseHandler } from './webhooks/service.ts';

/** Every job kind the service knows and its handler, on the process's services. Workers claim only these kinds. */
export function jobHandlers(config: Config, services: Services): Record<string, JobHandler> {
  const store = services.documents.store;
  return {
    [RETIRE_SERVER_TOKEN_JOB]: retireServerToken,
    [DOCUMENT_FETCH_JOB]: documentFetchHandler({
      store,
      allowPrivate: config.allowPrivateDocumentHosts,
      ...(config.serviceEnv === 'sandbox' ? { ownDocument: sandboxSampleDocument(config.publicUrl) } : {}),
    }),
    [DOCUMENT_PURGE_JOB]: documentPurgeHandler(store),
    [PAYMENT_NOTIFICATION_JOB]: paymentNotificationHandler(services.payments),
    [PAYMENT_RECONCILE_JOB]: paymentReconcileHandler(services.payments),
    [PAYMENT_EXPIRE_JOB]: paymentExpireHandler(services.payments),
    [PAYMENT_REFUND_JOB]: paymentRefundHandler(services.payments),
    [PAYMENT_SETTLEMENT_JOB]: paymentSettlementHandler(services.payments.settlement),
    [SCHEDULES_RUN_JOB]: schedulesRunHandler(services.scheduler),
    [SCHEDULE_CHARGE_JOB]: scheduleChargeHandler(services.scheduler),
    [SCHEDULE_ACTION_EXPIRE_JOB]: scheduleActionExpireHandler((id) => services.payments.expireWaiting(id)),
    [WEBHOOK_DELIVER_JOB]: webhookDeliveryHandler({ allowPrivate: config.allowPrivateWebhookHosts }),
    [WEBHOOK_SECRET_ERASE_JOB]: webhookSecretEraseHandler,
    [RENT_REMINDERS_JOB]: rentRemindersHandler(services.reminders),
    [JOBS_PRUNE_JOB]: jobsPruneHandler(config.jobRetentionDays * 86_400_000),
  };
}
