/**
 * The seam between the payment engine and an acquirer. The sandbox processor implements it; a real
 * acquirer's adapter implements the same, and the engine never learns which one it talks to.
 */

/**
 * The job kind that carries an acquirer's asynchronous notification (payload `{processor, body}`) to the
 * engine: whatever receives the acquirer's webhook only enqueues it, so the engine applies it with retries.
 */
export const PAYMENT_NOTIFICATION_JOB = 'payment.notification';

export type PaymentStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface NextAction {
  type: 'three_ds' | 'redirect' | 'qr';
  url: string;
}

export interface CardDetails {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** What an acquirer says about a payment, in acquirer words; `paymentStatusFor` maps it to ours. */
export type ProcessorOutcome =
  | { status: 'authorised'; processorPaymentId: string }
  | { status: 'action_required'; processorPaymentId: string; action: NextAction }
  | { status: 'refused'; processorPaymentId: string | null; code: string; message: string }
  | { status: 'pending'; processorPaymentId: string | null }
  | { status: 'cancelled'; processorPaymentId: string };

export interface AuthoriseRequest {
  /** The processor-side idempotency key: the same key never authorises twice. We pass the payment id. */
  idempotencyKey: string;
  amountPence: number;
  currency: 'GBP';
  /** A processor token for the card (or wallet/APM) the customer chose; never card data. */
  paymentToken: string;
  reference: string;
}

export interface RefundRequest {
  idempotencyKey: string;
  processorPaymentId: string;
  amountPence: number;
}

export type RefundOutcome = { status: 'refunded' } | { status: 'refused'; code: string; message: string };

/** An asynchronous notification (a webhook from the acquirer) decoded into the payment it is about. */
export interface ProcessorNotification {
  processorPaymentId: string;
  outcome: ProcessorOutcome;
}

export interface PaymentProcessor {
  readonly name: string;
  /** Display details of a token, or undefined when the processor does not know it. */
  describeToken(paymentToken: string): Promise<CardDetails | undefined>;
  authorise(request: AuthoriseRequest): Promise<ProcessorOutcome>;
  /** Where a payment stands now, e.g. after 3DS or an APM redirect, or when reconciling. */
  complete(processorPaymentId: string): Promise<ProcessorOutcome>;
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * Withdraws a payment still waiting for the customer (3DS, an APM page), so a late answer cannot charge.
   * Returns where the payment stands: `cancelled`, or its outcome if the customer answered first.
   */
  cancel(processorPaymentId: string): Promise<ProcessorOutcome>;
  parseNotification(body: unknown): ProcessorNotification | undefined;
  /** Makes a token reusable off-session (for saved cards and schedules). Not used by the engine yet. */
  saveCard(paymentToken: string): Promise<{ reusableToken: string; card: CardDetails }>;
  /** Charges a saved card without the customer present (recurring). Not used by the engine yet. */
  chargeOffSession(request: AuthoriseRequest): Promise<ProcessorOutcome>;
}

/** The one place acquirer outcomes become our payment states. */
export function paymentStatusFor(outcome: ProcessorOutcome): PaymentStatus {
  switch (outcome.status) {
    case 'authorised':
      return 'succeeded';
    case 'action_required':
      return 'requires_action';
    case 'refused':
      return 'failed';
    case 'pending':
      return 'processing';
    case 'cancelled':
      return 'canceled';
  }
}
