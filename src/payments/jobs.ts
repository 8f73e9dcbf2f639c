import type { Config } from '../platform/config/config.ts';
import type { JobContext, JobHandler } from '../platform/jobs/queue.ts';
import { createPaymentProcessor } from '../processors/create.ts';
import { PaymentService } from './service.ts';

function paymentService(config: Config, ctx: JobContext): PaymentService {
  return new PaymentService(ctx.db, ctx.clock, createPaymentProcessor(config, ctx.db, ctx.clock));
}

/** Payload `{processor, body}`: an acquirer's notification, applied once (final states ignore repeats). */
export function paymentNotificationHandler(config: Config): JobHandler {
  return async (ctx) => {
    const { processor, body } = ctx.job.payload;
    const payment = await paymentService(config, ctx).applyNotification(String(processor), body);
    if (!payment) ctx.log.warn('payment notification matched no payment');
    else ctx.log.info({ payment_id: payment.id, status: payment.status }, 'payment notification applied');
  };
}

/** Payload `{payment_id}`; does nothing unless the payment still waits for the customer. */
export function paymentExpireHandler(config: Config): JobHandler {
  return async (ctx) => {
    const paymentId = String(ctx.job.payload.payment_id);
    const payment = await paymentService(config, ctx).cancel(paymentId);
    ctx.log.info({ payment_id: paymentId, status: payment?.status }, 'payment expiry checked');
  };
}

/** Payload `{payment_id}`. */
export function paymentReconcileHandler(config: Config): JobHandler {
  return async (ctx) => {
    const paymentId = String(ctx.job.payload.payment_id);
    const payment = await paymentService(config, ctx).reconcile(paymentId);
    ctx.log.info({ payment_id: paymentId, status: payment?.status }, 'payment reconciled');
  };
}
