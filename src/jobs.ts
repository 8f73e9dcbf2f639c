import { DOCUMENT_FETCH_JOB, documentFetchHandler } from './documents/fetch-job.ts';
import { DOCUMENT_PURGE_JOB, documentPurgeHandler } from './documents/purge-job.ts';
import { FileDocumentStore } from './documents/storage.ts';
import { RETIRE_SERVER_TOKEN_JOB, retireServerToken } from './integrators/service.ts';
import {
  paymentExpireHandler,
  paymentNotificationHandler,
  paymentReconcileHandler,
  paymentRefundHandler,
} from './payments/jobs.ts';
import { PAYMENT_EXPIRE_JOB, PAYMENT_RECONCILE_JOB, PAYMENT_REFUND_JOB } from './payments/service.ts';
import type { Config } from './platform/config/config.ts';
import type { JobHandler } from './platform/jobs/queue.ts';
import { PAYMENT_NOTIFICATION_JOB } from './processors/processor.ts';
import { sandboxSampleDocument } from './sandbox/sample-documents.ts';
import { scheduleChargeHandler, schedulesRunHandler } from './schedules/jobs.ts';
import { SCHEDULE_CHARGE_JOB, SCHEDULES_RUN_JOB } from './schedules/scheduler.ts';
import { WEBHOOK_DELIVER_JOB, webhookDeliveryHandler } from './webhooks/delivery-job.ts';
import { WEBHOOK_SECRET_ERASE_JOB, webhookSecretEraseHandler } from './webhooks/service.ts';

/** Every job kind the service knows and its handler. Workers claim only kinds listed here. */
export function jobHandlers(config: Config): Record<string, JobHandler> {
  const store = new FileDocumentStore(config.documentsDir);
  return {
    [RETIRE_SERVER_TOKEN_JOB]: retireServerToken,
    [DOCUMENT_FETCH_JOB]: documentFetchHandler({
      store,
      allowPrivate: config.allowPrivateDocumentHosts,
      ...(config.serviceEnv === 'sandbox' ? { ownDocument: sandboxSampleDocument(config.publicUrl) } : {}),
    }),
    [DOCUMENT_PURGE_JOB]: documentPurgeHandler(store),
    [PAYMENT_NOTIFICATION_JOB]: paymentNotificationHandler(config),
    [PAYMENT_RECONCILE_JOB]: paymentReconcileHandler(config),
    [PAYMENT_EXPIRE_JOB]: paymentExpireHandler(config),
    [PAYMENT_REFUND_JOB]: paymentRefundHandler(config),
    [SCHEDULES_RUN_JOB]: schedulesRunHandler(config),
    [SCHEDULE_CHARGE_JOB]: scheduleChargeHandler(config),
    [WEBHOOK_DELIVER_JOB]: webhookDeliveryHandler({ allowPrivate: config.allowPrivateWebhookHosts }),
    [WEBHOOK_SECRET_ERASE_JOB]: webhookSecretEraseHandler,
  };
}
