import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Stripe from 'stripe';
import { Type } from 'typebox';
import type { StripeConfig } from '../../../platform/config/config.ts';
import { ServiceError } from '../../../platform/errors.ts';
import { unstorableTextPath } from '../../../platform/http/input-hygiene.ts';
import { ErrorResponse } from '../../../platform/http/schemas.ts';
import { enqueue } from '../../../platform/jobs/define.ts';
import { paymentNotificationJob } from '../../jobs/payment-notification.ts';
import { STRIPE_PROCESSOR } from '../processor.ts';

/** Stripe's default tolerance for a signature's timestamp. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The event types applied; every other type is answered 200 and ignored. */
export const STRIPE_EVENT_TYPES = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.processing',
  'payment_intent.requires_action',
  'charge.refunded',
  'refund.updated',
  'refund.failed',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'setup_intent.succeeded',
  'setup_intent.setup_failed',
  'setup_intent.canceled',
]);

/**
 * POST /api/processors/stripe/webhook: Stripe's events about our PaymentIntents and SetupIntents. The signature is
 * checked on the raw body; a verified event is only enqueued (once per Stripe event id), so the same path as the
 * sandbox's notifications applies it, with retries.
 */
export function stripeWebhookRoute(config: StripeConfig): FastifyPluginAsyncTypebox {
  return async (app) => {
    // The signature covers the exact bytes Stripe sent, so this route reads its body unparsed.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    app.post(
      '/api/processors/stripe/webhook',
      {
        schema: {
          summary: 'Stripe event endpoint (register this URL at Stripe)',
          tags: ['Processors'],
          headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String()) }),
          response: {
            200: Type.Object({ received: Type.Boolean(), applied: Type.Boolean() }),
            400: ErrorResponse,
          },
        },
      },
      async (request) => {
        const signature = request.headers['stripe-signature'];
        const raw = request.body;
        if (!signature)
          throw new ServiceError('invalid_signature', 'The Stripe-Signature header is missing.');
        if (!Buffer.isBuffer(raw)) throw new ServiceError('invalid_signature', 'The body is empty.');
        let event: Stripe.Event;
        try {
          event = Stripe.webhooks.constructEvent(
            raw,
            signature,
            config.webhookSecret,
            SIGNATURE_TOLERANCE_SECONDS,
          );
        } catch (error) {
          throw new ServiceError(
            'invalid_signature',
            `The Stripe signature does not verify (${(error as Error).message.split('\n')[0]}). Check ` +
              'STRIPE_WEBHOOK_SECRET is the signing secret of this endpoint.',
          );
        }
        // Signed, so from Stripe (or whoever holds the secret): still checked before it is queued as jsonb.
        if (event === null || typeof event !== 'object' || typeof event.type !== 'string') {
          throw new ServiceError('invalid_request', 'The body is not a Stripe event object.');
        }
        const unstorable = unstorableTextPath(event);
        if (unstorable !== undefined) {
          throw new ServiceError(
            'invalid_request',
            `The event holds text that cannot be stored (a NUL or an unpaired surrogate) at ${unstorable}.`,
          );
        }
        if (!STRIPE_EVENT_TYPES.has(event.type)) {
          request.log.info({ stripe_event: event.id, type: event.type }, 'stripe event ignored');
          return { received: true, applied: false };
        }
        const jobId = await app.ctx.db.transaction((tx) =>
          enqueue(tx, app.ctx.clock, paymentNotificationJob, {
            processor: STRIPE_PROCESSOR,
            body: event,
            notification_id: event.id,
          }),
        );
        // A redelivery of an event already queued is received and dropped: say so.
        const applied = jobId !== undefined;
        request.log.info(
          { stripe_event: event.id, type: event.type },
          applied ? 'stripe event queued' : 'stripe event already received',
        );
        return { received: true, applied };
      },
    );
  };
}
