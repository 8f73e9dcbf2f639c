import { Type } from 'typebox';
import { defineJob, STANDARD_RETRY } from '../../platform/jobs/define.ts';

/** What applying a notification found, as far as the job's log line tells. */
export type AppliedNotification =
  | { kind: 'payment'; payment: { id: string; status: string } }
  | { kind: 'saved_card'; card: { id: string; status: string } }
  | undefined;

/**
 * An acquirer's asynchronous notification about a payment or a saved card's check, carried to the payment engine:
 * whatever receives the acquirer's webhook only enqueues it, so the engine applies it with retries (final states
 * ignore repeats).
 */
export const paymentNotificationJob = defineJob({
  kind: 'payment.notification',
  summary: "Applies a processor's notification (payment or card check outcome) to its payment or saved card",
  payload: Type.Object({
    processor: Type.String(),
    body: Type.Unknown(),
    /** The processor's id of the notification, when it has one: the same notification is queued once. */
    notification_id: Type.Optional(Type.String()),
  }),
  retry: STANDARD_RETRY,
  dedupeKey: ({ processor, notification_id }) =>
    notification_id === undefined ? undefined : `${processor}-event:${notification_id}`,
  run:
    (payments: { applyNotification(processor: string, body: unknown): Promise<AppliedNotification> }) =>
    async ({ processor, body }, ctx) => {
      const result = await payments.applyNotification(processor, body);
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
    },
});
