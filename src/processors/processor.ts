import type { PaymentProcessorName } from '../platform/config/config.ts';
import type { Queryable } from '../platform/db/db.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';

/**
 * The seam between the payment engine and an acquirer. The sandbox processor implements it; a real
 * acquirer's adapter implements the same, and the engine never learns which one it talks to.
 */

import type { PaymentStatus } from '../shared/vocabulary.ts';

/**
 * What the customer must do: `three_ds` (a challenge page), `redirect` (the APM provider's page) or `qr` (a
 * code to scan with the provider's app: `url` is what it encodes, `image_url` an image of it); with Stripe,
 * `stripe_next_action`: Stripe.js completes it in the page with the PaymentIntent's client secret.
 */
export type NextAction =
  | { type: 'three_ds' | 'redirect' | 'qr'; url: string; image_url?: string }
  | { type: 'stripe_next_action'; client_secret: string };

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
  /** Who pays (our user id): a processor with customer objects charges that user's customer. */
  userId: string;
  /** What the processor's metadata links back to us: our payment id, session and integrator. */
  metadata: Record<string, string>;
  amountPence: number;
  currency: 'GBP';
  method: PaymentMethod;
  /** A processor token for the card or wallet the customer chose (never card data); null for APMs. */
  paymentToken: string | null;
  reference: string;
}

/** A card being saved for later: kept at once, after a 3DS check (`action`), or refused. */
export type SaveCardOutcome =
  | { status: 'saved'; reusableToken: string; card: CardDetails }
  | {
      status: 'action_required';
      /** The processor's card check; its notification (like a payment's) says how the 3DS ended. */
      processorSetupId: string;
      reusableToken: string;
      card: CardDetails;
      action: NextAction;
    }
  | { status: 'refused'; code: string; message: string };

/** What the page and SDK need to talk to the processor themselves (card tokenisation, wallet sheets). */
export interface ProcessorClientConfig {
  name: PaymentProcessorName;
  /** The sandbox's card tokenisation endpoint; null with Stripe (the Payment Element tokenises). */
  tokenizeUrl: string | null;
  /** The wallet sheet's base URL (`<wallet_url>/<apple_pay|google_pay>`), or null without wallets. */
  walletUrl: string | null;
  /** With Stripe: the publishable key and where Stripe.js loads from. */
  stripe?: { publishableKey: string; jsUrl: string };
}

/**
 * A confirmation token (Stripe's ConfirmationToken) read back on the server: the card it previews (null for an
 * APM), or why it cannot pay by the method asked for.
 */
export type ConfirmationTokenPreview =
  | { ok: true; card: CardDetails | null }
  | { ok: false; message: string };

export interface RefundRequest {
  /** The processor-side idempotency key: the same key never refunds twice. We pass the refund id. */
  idempotencyKey: string;
  processorPaymentId: string;
  amountPence: number;
}

/**
 * A refund as the processor answers it: done (`refunded`), accepted but not finished (`pending`: the processor's
 * event says later how it ended), or refused. `processorRefundId` is the processor's own id of it, when it has one.
 */
export type RefundOutcome =
  | { status: 'refunded'; processorRefundId?: string }
  | { status: 'pending'; processorRefundId: string }
  | { status: 'refused'; code: string; message: string };

/** How one refund stands at the processor, as its event says (a refund that succeeded may still fail later). */
export interface ProcessorRefundUpdate {
  processorRefundId: string;
  status: 'pending' | 'succeeded' | 'failed';
  /** Why it failed, in the processor's words (e.g. `expired_or_canceled_card`). */
  failureCode: string | null;
  /** Our refund id, when the processor echoes it (Stripe's metadata). */
  refundId?: string;
}

/** An asynchronous notification (a webhook from the acquirer) decoded into the payment it is about. */
export type ProcessorNotification =
  | {
      /** The processor's payment id, or the setup id of a card being saved. */
      processorPaymentId: string;
      outcome: ProcessorOutcome;
      /**
       * Our payment id, when the processor echoes it (Stripe's metadata): it finds the payment even before the
       * processor's id was stored, e.g. when the answer that carried it was lost.
       */
      paymentId?: string;
    }
  | {
      processorPaymentId: string;
      /** How much of the payment the processor has refunded in all, whoever asked (e.g. its dashboard). */
      refundedTotalPence: number;
    }
  | {
      processorPaymentId: string;
      /** One refund moved on: finished, or failed (possibly after it had succeeded). */
      refund: ProcessorRefundUpdate;
    }
  | {
      processorPaymentId: string;
      /** The cardholder disputes the payment (`open`), or the dispute has ended for (`won`) or against us (`lost`). */
      dispute: DisputeStatus;
      /** How much of the payment is disputed (all of it, or part when only part is). */
      disputedPence: number;
    };

/** Where a payment's dispute stands: open (its funds held back), won (funds reinstated) or lost (funds gone). */
export type DisputeStatus = 'open' | 'won' | 'lost';

export interface PaymentProcessor {
  readonly name: PaymentProcessorName;
  /**
   * Display details of a token that can pay by `method` (a card token for `card`, a wallet's token for
   * `apple_pay`/`google_pay`), or undefined when the processor does not know it for that method.
   */
  describeToken(paymentToken: string, method: PaymentMethod): Promise<CardDetails | undefined>;
  authorise(request: AuthoriseRequest): Promise<ProcessorOutcome>;
  /**
   * Set by a processor whose charges are rows of our own database (the sandbox): authorises new payments inside
   * the transaction that writes them, one outcome per request, in order. Each payment is then written once, already
   * decided, in one commit. A processor across a network (Stripe) leaves it unset: a payment is committed
   * `processing` before the processor is asked, and its outcome is written after, in a second transaction.
   */
  authoriseInTransaction?(tx: Queryable, requests: readonly AuthoriseRequest[]): Promise<ProcessorOutcome[]>;
  /**
   * Set with authoriseInTransaction: describeToken for several tokens inside the transaction that is to charge
   * them, so a new payment by token reads nothing before its transaction. One answer per token, in order.
   */
  describeTokensInTransaction?(
    tx: Queryable,
    tokens: readonly { paymentToken: string; method: PaymentMethod }[],
  ): Promise<(CardDetails | undefined)[]>;
  /** Where a payment stands now, e.g. after 3DS or an APM redirect, or when reconciling. */
  complete(processorPaymentId: string): Promise<ProcessorOutcome>;
  /**
   * Refunds part or all of an authorised charge. Asked again with the same idempotency key (a lost answer, the
   * refund job), it refunds nothing more and answers as it did the first time.
   */
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * Withdraws a payment still waiting for the customer (3DS, an APM page), so a late answer cannot charge.
   * Returns where the payment stands: `cancelled`, or its outcome if the customer answered first.
   */
  cancel(processorPaymentId: string): Promise<ProcessorOutcome>;
  parseNotification(body: unknown): ProcessorNotification | undefined;
  /**
   * Makes a card token reusable (saved cards, schedules) for user `userId`, possibly after a 3DS check. The same
   * idempotency key answers the same outcome and checks the card once.
   */
  saveCard(paymentToken: string, idempotencyKey: string, userId: string): Promise<SaveCardOutcome>;
  /**
   * Set when the page collects methods as confirmation tokens (Stripe's Payment Element) rather than card and
   * wallet tokens: reads a token back and checks it can pay by `method`; undefined for an unknown token.
   */
  previewConfirmationToken?(
    token: string,
    method: PaymentMethod,
  ): Promise<ConfirmationTokenPreview | undefined>;
  /**
   * Set when a failed attempt leaves something the customer could still use (Stripe: a PaymentIntent whose client
   * secret could confirm another card): withdraws it. The engine calls it when a notification fails a payment.
   */
  discardFailed?(processorPaymentId: string): Promise<void>;
  /**
   * True when a waiting payment's outcome can be read from the processor whenever the page asks (Stripe: the
   * customer finished 3DS in Stripe.js, whose event may still be on its way).
   */
  readonly readsOutcomeOnPoll?: boolean;
  /**
   * Set when a succeeded payment's funds become available to pay out later than at once (Stripe: its balance
   * transaction's `available_on`): when they do, or undefined while the processor cannot say yet (ask again).
   * Unset, a payment's funds are available as soon as it succeeds.
   */
  fundsAvailableAt?(processorPaymentId: string): Promise<Date | undefined>;
  /**
   * Set when a notification's refunded total may be stale (Stripe's `charge.refunded` is a snapshot from when a
   * refund was made, and may arrive after that refund failed): how much of the payment is refunded now.
   */
  refundedTotal?(processorPaymentId: string): Promise<number>;
  /**
   * Charges a saved card without the customer present (recurring). When the bank wants the cardholder to
   * authenticate, answers `refused` with code `authentication_required` and, with confirmWithCustomer, keeps the
   * payment so the customer can complete it later.
   */
  chargeOffSession(request: AuthoriseRequest): Promise<ProcessorOutcome>;
  /**
   * Set when an off-session charge refused with `authentication_required` can be completed by the customer later
   * (SCA): confirms it on session with the same saved card, so the customer can authenticate. Answers
   * `action_required` with what to show (Stripe: the PaymentIntent's client secret for Stripe.js; sandbox: the 3DS
   * page), or how it ended if it already has.
   */
  confirmWithCustomer?(processorPaymentId: string, paymentToken: string): Promise<ProcessorOutcome>;
  clientConfig(): ProcessorClientConfig;
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
