import type { Logger } from 'pino';
import Stripe from 'stripe';
import type { StripeConfig } from '../../platform/config/config.ts';
import type { Db } from '../../platform/db/db.ts';
import type { PaymentMethod } from '../../shared/vocabulary.ts';
import type {
  AuthoriseRequest,
  CardDetails,
  ConfirmationTokenPreview,
  PaymentProcessor,
  ProcessorClientConfig,
  ProcessorNotification,
  ProcessorOutcome,
  RefundOutcome,
  RefundRequest,
  SaveCardOutcome,
} from '../processor.ts';
import { stripeCustomerFor } from './customers.ts';
import {
  disputeStatusOf,
  methodOfPreview,
  outcomeOfIntent,
  outcomeOfSetupIntent,
  refundOutcome,
  refundUpdateOf,
} from './outcome.ts';

export const STRIPE_PROCESSOR = 'stripe' as const;

/** The events about one Refund: it finished, or failed (even after it had succeeded). */
const REFUND_EVENTS = new Set(['refund.updated', 'refund.failed', 'charge.refund.updated']);

/** Where a redirect method (Alipay) sends the customer back to; it hands the outcome back to the frame. */
export const RETURN_PATH = '/third-party/return';

const CONFIRMATION_TOKEN = /^ctoken_[A-Za-z0-9]{1,200}$/;

/** What a tenant reads when Stripe refused to start a payment (a request it found invalid): nothing was charged. */
const PROCESSOR_ERROR_MESSAGE =
  'The payment could not be started with the card processor. You have not been charged; please try again or choose another way to pay.';

/**
 * Stripe refused the request itself, before any PaymentIntent or SetupIntent existed: invalid or missing parameters
 * (400), an object it does not know (404), an idempotency key reused with other parameters. Stripe keeps no
 * result for these, so asking again only repeats the refusal: the attempt has failed.
 */
function refusedRequest(error: unknown): error is Stripe.errors.StripeError {
  return (
    (error instanceof Stripe.errors.StripeInvalidRequestError &&
      (error.statusCode === 400 || error.statusCode === 404)) ||
    error instanceof Stripe.errors.StripeIdempotencyError
  );
}

/** The official client, pointed at STRIPE_API_BASE (Stripe itself, or a Stripe-compatible test server). */
export function stripeClient(config: StripeConfig): Stripe {
  const base = new URL(config.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(config.secretKey, {
    host: base.hostname,
    port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443,
    protocol,
    // Retries reuse the idempotency key, so a retried create never charges twice.
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'rentpay' },
  });
}

type Intent = Stripe.PaymentIntent & { lastResponse?: { headers?: Record<string, string> } };

/**
 * The Stripe processor: PaymentIntents confirmed on the server with the page's ConfirmationToken (or a saved
 * PaymentMethod), SetupIntents for saved cards, off-session PaymentIntents for recurring charges, the Refunds
 * API for refunds. Our ids are Stripe's idempotency keys, so a retry never charges or refunds twice.
 */
export class StripeProcessor implements PaymentProcessor {
  readonly name = STRIPE_PROCESSOR;
  readonly readsOutcomeOnPoll = true;
  readonly #stripe: Stripe;

  constructor(
    private readonly db: Db,
    private readonly config: StripeConfig,
    private readonly publicUrl: string,
    private readonly log?: Logger,
  ) {
    this.#stripe = stripeClient(config);
  }

  clientConfig(): ProcessorClientConfig {
    return {
      name: STRIPE_PROCESSOR,
      tokenizeUrl: null,
      walletUrl: null,
      stripe: { publishableKey: this.config.publishableKey, jsUrl: this.config.jsUrl },
    };
  }

  async previewConfirmationToken(
    token: string,
    method: PaymentMethod,
  ): Promise<ConfirmationTokenPreview | undefined> {
    if (!CONFIRMATION_TOKEN.test(token)) return undefined;
    let confirmation: Stripe.ConfirmationToken;
    try {
      confirmation = await this.#stripe.confirmationTokens.retrieve(token);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404)
        return undefined;
      throw error;
    }
    const preview = confirmation.payment_method_preview;
    if (!preview) return undefined;
    const actual = methodOfPreview(preview);
    if (actual !== method) {
      return {
        ok: false,
        message: actual
          ? `The payment details collected are for method "${actual}", not "${method}"; send method "${actual}".`
          : `The payment details collected (${preview.type}) are not a method this service takes.`,
      };
    }
    return { ok: true, card: preview.card ? cardOf(preview.card) : null };
  }

  async describeToken(paymentToken: string, method: PaymentMethod): Promise<CardDetails | undefined> {
    const preview = await this.previewConfirmationToken(paymentToken, method);
    return preview?.ok && preview.card ? preview.card : undefined;
  }

  async authorise(request: AuthoriseRequest): Promise<ProcessorOutcome> {
    if (!request.paymentToken)
      throw new Error('A Stripe payment needs a confirmation token or a saved card.');
    const customer = await stripeCustomerFor(this.db, this.#stripe, request.userId);
    const params: Stripe.PaymentIntentCreateParams = {
      amount: request.amountPence,
      currency: 'gbp',
      customer,
      metadata: request.metadata,
      description: `Rent ${request.reference}`,
      confirm: true,
      return_url: `${this.publicUrl}${RETURN_PATH}`,
      // Stripe requires the client WeChat Pay is paid from; a ConfirmationToken cannot carry it.
      ...(request.method === 'wechat_pay'
        ? { payment_method_options: { wechat_pay: { client: 'web' } } }
        : {}),
      // A saved card's 3DS is shown by Stripe.js in the page (a ConfirmationToken asks for that by itself).
      ...(request.paymentToken.startsWith('ctoken_')
        ? { confirmation_token: request.paymentToken }
        : { payment_method: request.paymentToken, use_stripe_sdk: true }),
    };
    return this.#confirmIntent(params, request.idempotencyKey);
  }

  async chargeOffSession(request: AuthoriseRequest): Promise<ProcessorOutcome> {
    if (!request.paymentToken) throw new Error('An off-session charge needs a saved card.');
    const customer = await stripeCustomerFor(this.db, this.#stripe, request.userId);
    return this.#confirmIntent(
      {
        amount: request.amountPence,
        currency: 'gbp',
        customer,
        payment_method: request.paymentToken,
        metadata: request.metadata,
        description: `Rent ${request.reference}`,
        off_session: true,
        confirm: true,
        // Nobody is there to follow a redirect, so the intent takes no redirect method (and needs no return_url).
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      },
      request.idempotencyKey,
      // The bank wants the cardholder: the PaymentIntent is kept for confirmWithCustomer.
      (outcome) => outcome.status === 'refused' && outcome.code === 'authentication_required',
    );
  }

  async confirmWithCustomer(processorPaymentId: string, paymentToken: string): Promise<ProcessorOutcome> {
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.#stripe.paymentIntents.confirm(processorPaymentId, {
        payment_method: paymentToken,
        return_url: `${this.publicUrl}${RETURN_PATH}`,
        use_stripe_sdk: true,
      });
    } catch (error) {
      if (error instanceof Stripe.errors.StripeError && error.payment_intent) intent = error.payment_intent;
      // Confirmed already (a second press, another tab): where it stands is the answer.
      else if (error instanceof Stripe.errors.StripeInvalidRequestError) {
        intent = await this.#stripe.paymentIntents.retrieve(processorPaymentId);
      } else throw error;
    }
    return this.#outcomeWithdrawingFailure(intent);
  }

  async complete(processorPaymentId: string): Promise<ProcessorOutcome> {
    return this.#outcomeWithdrawingFailure(await this.#stripe.paymentIntents.retrieve(processorPaymentId));
  }

  async cancel(processorId: string): Promise<ProcessorOutcome> {
    if (processorId.startsWith('seti_')) {
      try {
        return outcomeOfSetupIntent(await this.#stripe.setupIntents.cancel(processorId)).outcome;
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
        return outcomeOfSetupIntent(await this.#stripe.setupIntents.retrieve(processorId)).outcome;
      }
    }
    // Canceling clears last_payment_error: an attempt that has failed meanwhile (3DS failed in Stripe.js) is read
    // first, so its refusal is what is recorded.
    const current = outcomeOfIntent(await this.#stripe.paymentIntents.retrieve(processorId));
    if (current.status === 'refused' || current.status === 'authorised' || current.status === 'cancelled') {
      if (current.status === 'refused') await this.discardFailed(processorId);
      return current;
    }
    try {
      return outcomeOfIntent(await this.#stripe.paymentIntents.cancel(processorId));
    } catch (error) {
      // Already succeeded, processing or canceled: where it stands is the answer.
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
      return outcomeOfIntent(await this.#stripe.paymentIntents.retrieve(processorId));
    }
  }

  /**
   * Cancels a PaymentIntent whose attempt failed, so its client secret can never be used to try another card.
   * Best effort: one already canceled (or gone) needs nothing.
   */
  async discardFailed(processorPaymentId: string): Promise<void> {
    try {
      await this.#stripe.paymentIntents.cancel(processorPaymentId);
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
    }
  }

  /** The `available_on` of the balance transaction of the PaymentIntent's charge (none yet: undefined). */
  async fundsAvailableAt(processorPaymentId: string): Promise<Date | undefined> {
    const intent = await this.#stripe.paymentIntents.retrieve(processorPaymentId, {
      expand: ['latest_charge.balance_transaction'],
    });
    const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
    const transaction =
      charge && typeof charge.balance_transaction === 'object' ? charge.balance_transaction : null;
    return transaction ? new Date(transaction.available_on * 1000) : undefined;
  }

  /** The PaymentIntent's charge's `amount_refunded` now (failed refunds no longer count in it). */
  async refundedTotal(processorPaymentId: string): Promise<number> {
    const intent = await this.#stripe.paymentIntents.retrieve(processorPaymentId, {
      expand: ['latest_charge'],
    });
    return typeof intent.latest_charge === 'object' && intent.latest_charge
      ? intent.latest_charge.amount_refunded
      : 0;
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    try {
      const refund = await this.#stripe.refunds.create(
        {
          payment_intent: request.processorPaymentId,
          amount: request.amountPence,
          // Its events name our refund, even one whose answer was lost before Stripe's id was stored.
          metadata: { refund_id: request.idempotencyKey },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return refundOutcome(refund);
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
      return { status: 'refused', code: 'refund_refused', message: error.message };
    }
  }

  parseNotification(body: unknown): ProcessorNotification | undefined {
    const event = body as Partial<Stripe.Event> | null;
    const object = event?.data?.object as { id?: unknown; object?: unknown } | undefined;
    if (typeof event?.type !== 'string' || typeof object?.id !== 'string') return undefined;
    if (event.type.startsWith('payment_intent.') && object.object === 'payment_intent') {
      const intent = object as Stripe.PaymentIntent;
      const paymentId = intent.metadata?.payment_id;
      return {
        processorPaymentId: intent.id,
        outcome: outcomeOfIntent(intent),
        ...(typeof paymentId === 'string' ? { paymentId } : {}),
      };
    }
    if (object.object === 'refund' && REFUND_EVENTS.has(event.type)) {
      const refund = object as Stripe.Refund;
      const intent =
        typeof refund.payment_intent === 'string' ? refund.payment_intent : refund.payment_intent?.id;
      if (!intent) return undefined;
      return { processorPaymentId: intent, refund: refundUpdateOf(refund) };
    }
    if (event.type === 'charge.refunded' && object.object === 'charge') {
      const charge = object as Stripe.Charge;
      const intent =
        typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
      if (!intent) return undefined;
      return { processorPaymentId: intent, refundedTotalPence: charge.amount_refunded };
    }
    if (event.type.startsWith('charge.dispute.') && object.object === 'dispute') {
      const dispute = object as Stripe.Dispute;
      const intent =
        typeof dispute.payment_intent === 'string' ? dispute.payment_intent : dispute.payment_intent?.id;
      if (!intent) return undefined;
      return {
        processorPaymentId: intent,
        dispute: disputeStatusOf(dispute.status),
        disputedPence: dispute.amount,
      };
    }
    if (event.type.startsWith('setup_intent.') && object.object === 'setup_intent') {
      const setup = object as Stripe.SetupIntent;
      return { processorPaymentId: setup.id, outcome: outcomeOfSetupIntent(setup).outcome };
    }
    return undefined;
  }

  async saveCard(paymentToken: string, idempotencyKey: string, userId: string): Promise<SaveCardOutcome> {
    const customer = await stripeCustomerFor(this.db, this.#stripe, userId);
    let setup: Stripe.SetupIntent;
    try {
      setup = await this.#stripe.setupIntents.create(
        {
          customer,
          confirmation_token: paymentToken,
          confirm: true,
          usage: 'off_session',
          return_url: `${this.publicUrl}${RETURN_PATH}`,
          metadata: { user_id: userId },
          expand: ['payment_method'],
        },
        { idempotencyKey },
      );
    } catch (error) {
      if (error instanceof Stripe.errors.StripeError && error.setup_intent) {
        setup = error.setup_intent;
      } else if (refusedRequest(error)) {
        this.#logRefusal(error, idempotencyKey);
        return { status: 'refused', code: 'processor_error', message: PROCESSOR_ERROR_MESSAGE };
      } else {
        throw error;
      }
    }
    const { outcome } = outcomeOfSetupIntent(setup);
    const method = typeof setup.payment_method === 'object' ? setup.payment_method : null;
    const card = method?.card ? cardOf(method.card) : null;
    if (outcome.status === 'refused') {
      await this.cancel(setup.id).catch(() => undefined);
      return { status: 'refused', code: outcome.code, message: outcome.message };
    }
    if (!method || !card) {
      return { status: 'refused', code: 'payment_failed', message: 'Only a card can be saved.' };
    }
    if (outcome.status === 'authorised') return { status: 'saved', reusableToken: method.id, card };
    if (outcome.status === 'action_required') {
      return {
        status: 'action_required',
        processorSetupId: setup.id,
        reusableToken: method.id,
        card,
        action: outcome.action,
      };
    }
    return {
      status: 'refused',
      code: 'payment_failed',
      message: 'The card could not be checked just now; try again.',
    };
  }

  /** Stripe's words and request id go to the log (for support to look up at Stripe), never to the tenant. */
  #logRefusal(error: Stripe.errors.StripeError, idempotencyKey: string): void {
    this.log?.warn(
      {
        stripe_request_id: error.requestId,
        stripe_status: error.statusCode,
        stripe_code: error.code,
        stripe_param: error.param,
        stripe_message: error.message,
        idempotency_key: idempotencyKey,
      },
      'Stripe refused the request: the attempt failed',
    );
  }

  /** The intent's outcome; a refused one (unless `keep` says the customer may still complete it) is withdrawn. */
  async #outcomeWithdrawingFailure(
    intent: Stripe.PaymentIntent,
    keep: (outcome: ProcessorOutcome) => boolean = () => false,
  ): Promise<ProcessorOutcome> {
    const outcome = outcomeOfIntent(intent);
    if (outcome.status === 'refused' && intent.status !== 'canceled' && !keep(outcome)) {
      await this.discardFailed(intent.id);
    }
    return outcome;
  }

  /**
   * Creates and confirms a PaymentIntent under our idempotency key. A card error answers 402 with the intent in
   * it; a replayed answer (the key was used before, e.g. reconciliation after a lost answer) may be stale, so
   * the intent is read again. A failed attempt's intent is canceled, unless `keep` says the customer may still
   * complete it.
   */
  async #confirmIntent(
    params: Stripe.PaymentIntentCreateParams,
    idempotencyKey: string,
    keep: (outcome: ProcessorOutcome) => boolean = () => false,
  ): Promise<ProcessorOutcome> {
    let intent: Intent;
    let replayed: boolean;
    try {
      intent = await this.#stripe.paymentIntents.create(params, { idempotencyKey });
      replayed = intent.lastResponse?.headers?.['idempotent-replayed'] === 'true';
    } catch (error) {
      if (error instanceof Stripe.errors.StripeError && error.payment_intent) {
        intent = error.payment_intent;
        replayed = error.headers?.['idempotent-replayed'] === 'true';
      } else if (refusedRequest(error)) {
        this.#logRefusal(error, idempotencyKey);
        return {
          status: 'refused',
          processorPaymentId: null,
          code: 'processor_error',
          message: PROCESSOR_ERROR_MESSAGE,
        };
      } else {
        throw error;
      }
    }
    if (replayed) intent = await this.#stripe.paymentIntents.retrieve(intent.id);
    return this.#outcomeWithdrawingFailure(intent, keep);
  }
}

function cardOf(card: { brand: string; last4: string; exp_month: number; exp_year: number }): CardDetails {
  return { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year };
}
