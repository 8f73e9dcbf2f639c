import type Stripe from 'stripe';
import type { PaymentMethod } from '../../shared/vocabulary.ts';
import type { DisputeStatus, ProcessorOutcome, ProcessorRefundUpdate, RefundOutcome } from '../processor.ts';

/**
 * Our failure code for a Stripe card error: the issuer's decline code where it names one of ours (so a tenant
 * sees the same reasons as in sandbox), else Stripe's error code, else card_declined.
 */
const DECLINE_CODES: Record<string, string> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  authentication_required: 'authentication_required',
};

const FAILURE_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  authentication_required: 'This card needs the cardholder to authenticate each payment.',
  authentication_failed: 'The card issuer could not authenticate this payment.',
  payment_failed: 'The payment failed.',
};

type PaymentError = Pick<Stripe.PaymentIntent.LastPaymentError, 'code' | 'decline_code' | 'message' | 'type'>;

/** Our failure code and message for a Stripe payment error (a PaymentIntent's last_payment_error). */
export function failureOf(error: PaymentError | null | undefined): { code: string; message: string } {
  const candidates = [error?.decline_code, error?.code].filter((c): c is string => typeof c === 'string');
  const known = candidates.map((c) => DECLINE_CODES[c]).find((c) => c !== undefined);
  let code: string;
  if (known) code = known;
  else if (error?.code === 'payment_intent_authentication_failure') code = 'authentication_failed';
  else if (error?.type === 'card_error' || error?.code === 'card_declined') code = 'card_declined';
  else code = 'payment_failed';
  return { code, message: FAILURE_MESSAGES[code] ?? error?.message ?? 'The payment failed.' };
}

type Intent = Pick<Stripe.PaymentIntent, 'id' | 'status' | 'client_secret' | 'last_payment_error'>;

/**
 * Which of our methods a ConfirmationToken's payment method is: a card, a UnionPay-brand card (`unionpay`), a
 * card in a wallet, Alipay or WeChat Pay; undefined for anything else.
 */
export function methodOfPreview(preview: {
  type: string;
  card?: { brand: string; wallet?: { type: string } | null } | null;
}): PaymentMethod | undefined {
  switch (preview.type) {
    case 'card': {
      const wallet = preview.card?.wallet?.type;
      if (wallet === 'apple_pay' || wallet === 'google_pay') return wallet;
      if (wallet) return undefined;
      return preview.card?.brand === 'unionpay' ? 'unionpay' : 'card';
    }
    case 'alipay':
      return 'alipay';
    case 'wechat_pay':
      return 'wechat_pay';
    default:
      return undefined;
  }
}

/**
 * The one place a Stripe PaymentIntent's status becomes a processor outcome (then `paymentStatusFor` makes it
 * ours). An intent back at requires_payment_method after a confirmation has failed: its last_payment_error
 * says why. requires_capture cannot happen (automatic capture) and is treated as pending.
 */
export function outcomeOfIntent(intent: Intent): ProcessorOutcome {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'authorised', processorPaymentId: intent.id };
    case 'requires_action':
      return {
        status: 'action_required',
        processorPaymentId: intent.id,
        action: { type: 'stripe_next_action', client_secret: intent.client_secret ?? '' },
      };
    case 'processing':
    case 'requires_capture':
    case 'requires_confirmation':
      return { status: 'pending', processorPaymentId: intent.id };
    case 'canceled':
      // Canceled after a failed attempt (we cancel those): the failure is the outcome.
      if (intent.last_payment_error) {
        const { code, message } = failureOf(intent.last_payment_error);
        return { status: 'refused', processorPaymentId: intent.id, code, message };
      }
      return { status: 'cancelled', processorPaymentId: intent.id };
    case 'requires_payment_method': {
      const { code, message } = failureOf(intent.last_payment_error);
      return { status: 'refused', processorPaymentId: intent.id, code, message };
    }
    default:
      // A status Stripe adds later: not final for us; reconciliation asks again.
      return { status: 'pending', processorPaymentId: intent.id };
  }
}

type Setup = Pick<Stripe.SetupIntent, 'id' | 'status' | 'client_secret' | 'last_setup_error'>;

/** A SetupIntent (a card being saved) as a processor outcome about its setup id. */
export function outcomeOfSetupIntent(setup: Setup): { outcome: ProcessorOutcome } {
  const processorPaymentId = setup.id;
  switch (setup.status) {
    case 'succeeded':
      return { outcome: { status: 'authorised', processorPaymentId } };
    case 'requires_action':
      return {
        outcome: {
          status: 'action_required',
          processorPaymentId,
          action: { type: 'stripe_next_action', client_secret: setup.client_secret ?? '' },
        },
      };
    case 'canceled':
      if (!setup.last_setup_error) return { outcome: { status: 'cancelled', processorPaymentId } };
      return { outcome: { status: 'refused', processorPaymentId, ...failureOf(setup.last_setup_error) } };
    case 'requires_payment_method':
      return { outcome: { status: 'refused', processorPaymentId, ...failureOf(setup.last_setup_error) } };
    default:
      return { outcome: { status: 'pending', processorPaymentId } };
  }
}

/**
 * The one place a Stripe Refund's status becomes ours. `pending` (the card network has not confirmed it) and
 * `requires_action` stay pending: Stripe's refund.updated or refund.failed event says how it ends.
 */
export function refundOutcome(
  refund: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>,
): RefundOutcome {
  switch (refund.status) {
    case 'succeeded':
      return { status: 'refunded', processorRefundId: refund.id };
    case 'failed':
    case 'canceled':
      return {
        status: 'refused',
        code: refund.failure_reason ?? 'refund_failed',
        message: 'Stripe could not refund this payment.',
      };
    default:
      return { status: 'pending', processorRefundId: refund.id };
  }
}

/** A Stripe Refund from its event, as an update of our refund (what refundOutcome says, in event form). */
export function refundUpdateOf(refund: Stripe.Refund): ProcessorRefundUpdate {
  const outcome = refundOutcome(refund);
  const refundId = refund.metadata?.refund_id;
  return {
    processorRefundId: refund.id,
    status: outcome.status === 'refunded' ? 'succeeded' : outcome.status === 'refused' ? 'failed' : 'pending',
    failureCode: outcome.status === 'refused' ? outcome.code : null,
    ...(typeof refundId === 'string' ? { refundId } : {}),
  };
}

/**
 * The one place a Stripe Dispute's status becomes ours. Won, prevented, an inquiry closed without a dispute, or the
 * charge refunded instead: the dispute holds nothing back any more. Lost: they are gone. Anything else (an inquiry, evidence due or under review,
 * an appeal, a status Stripe adds later) holds them.
 */
export function disputeStatusOf(status: string): DisputeStatus {
  switch (status) {
    case 'won':
    case 'prevented':
    case 'warning_closed':
    // Older API versions: the charge was refunded instead, which its own charge.refunded event records.
    case 'charge_refunded':
      return 'won';
    case 'lost':
      return 'lost';
    default:
      return 'open';
  }
}
