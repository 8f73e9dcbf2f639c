import type { JobHandler } from '../platform/jobs/queue.ts';
import type { PaymentService } from './service.ts';

/**
 * Payload `{processor, body}`: an acquirer's notification about a payment or a saved card's check, applied once
 * (final states ignore repeats).
 */
export function paymentNotificationHandler(payments: PaymentService): JobHandler {
  return async (ctx) => {
    const { processor, body } = ctx.job.payload;
    const result = await payments.applyNotification(String(processor), body);
    if (!result) ctx.log.warn('payment notification matched no payment and no saved card');
    else if (result.kind === 'payment') {
      ctx.log.info(
        { payment_id: result.payment.id, status: result.payment.status },
        'payment notification applied',
      );
    } else {
      ctx.log.info(
        { card_id: result.card.id, status: result.card.status },
        'card check notification applied',
      );
    }
  };
}

/** Payload `{payment_id}`; does nothing unless the payment still waits for the customer. */
export function paymentExpireHandler(payments: PaymentService): JobHandler {
  return async (ctx) => {
    const paymentId = String(ctx.job.payload.payment_id);
    const payment = await payments.cancel(paymentId);
    ctx.log.info({ payment_id: paymentId, status: payment?.status }, 'payment expiry checked');
  };
}

/** Payload `{payment_id}`. */
export function paymentReconcileHandler(payments: PaymentService): JobHandler {
  return async (ctx) => {
    const paymentId = String(ctx.job.payload.payment_id);
    const payment = await payments.reconcile(paymentId);
    ctx.log.info({ payment_id: paymentId, status: payment?.status }, 'payment reconciled');
  };
}

/** Payload `{refund_id}`; finishes a refund still `pending` with the same processor key, or does nothing. */
export function paymentRefundHandler(payments: PaymentService): JobHandler {
  return async (ctx) => {
    const refundId = String(ctx.job.payload.refund_id);
    const { refund } = await payments.refunds.finishRefund(refundId);
    ctx.log.info(
      { refund_id: refundId, payment_id: refund.payment_id, status: refund.status },
      'refund checked',
    );
  };
}
