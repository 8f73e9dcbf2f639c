import { ApiProblem, type ClientApi, type Payment, type SavedCard } from './api.ts';
import { OutcomeError, type PaymentError, tenantFailureMessage } from './outcomes.ts';

/**
 * Stripe.js for the page: a tiny loader (one <script>, a promise that resets when loading fails so "Try again"
 * can work) and hand-written types for the few calls the page makes. Card fields live in Stripe's own frames:
 * card data never reaches this script.
 */

export interface StripeError {
  type: string;
  code?: string;
  decline_code?: string;
  message?: string;
}

export interface ConfirmationToken {
  id: string;
  payment_method_preview?: {
    type: string;
    card?: { brand: string; last4: string; wallet?: { type: string } | null } | null;
  };
}

export interface StripeIntent {
  id: string;
  status: string;
  next_action?: {
    type: string;
    alipay_handle_redirect?: { url: string };
    redirect_to_url?: { url: string };
  } | null;
}

export interface ElementsOptions {
  mode: 'payment' | 'setup';
  currency: 'gbp';
  amount?: number;
  /** Stripe's update() merges: null (not leaving it out) is what takes a setupFutureUsage set earlier away. */
  setupFutureUsage?: 'off_session' | null;
  paymentMethodTypes: string[];
}

export interface PaymentElement {
  mount(target: HTMLElement): void;
  on(event: 'ready' | 'change', handler: (event: unknown) => void): void;
  destroy(): void;
}

/** The Express Checkout Element: wallet buttons (Apple Pay, Google Pay) that open the wallet's own sheet. */
export interface ExpressCheckoutElement {
  mount(target: HTMLElement): void;
  on(
    event: 'ready',
    handler: (event: { availablePaymentMethods?: Record<string, boolean> | undefined }) => void,
  ): void;
  on(
    event: 'confirm',
    handler: (event: {
      expressPaymentType: string;
      paymentFailed(payload?: { reason?: string }): void;
    }) => void,
  ): void;
  destroy(): void;
}

export interface StripeElements {
  create(type: 'payment', options?: Record<string, unknown>): PaymentElement;
  create(type: 'expressCheckout', options?: Record<string, unknown>): ExpressCheckoutElement;
  update(options: Partial<ElementsOptions>): void;
  submit(): Promise<{ error?: StripeError }>;
}

export interface StripeClient {
  elements(options: ElementsOptions): StripeElements;
  createConfirmationToken(options: {
    elements: StripeElements;
  }): Promise<{ confirmationToken?: ConfirmationToken; error?: StripeError }>;
  handleNextAction(options: { clientSecret: string }): Promise<{ error?: StripeError }>;
  retrievePaymentIntent(clientSecret: string): Promise<{ paymentIntent?: StripeIntent; error?: StripeError }>;
}

type StripeConstructor = (publishableKey: string) => StripeClient;

let loading: Promise<StripeConstructor> | undefined;

function loadScript(jsUrl: string): Promise<StripeConstructor> {
  return new Promise((resolve, reject) => {
    const existing = (window as { Stripe?: StripeConstructor }).Stripe;
    if (existing) return resolve(existing);
    const script = document.createElement('script');
    script.src = jsUrl;
    script.async = true;
    script.addEventListener('load', () => {
      const loaded = (window as { Stripe?: StripeConstructor }).Stripe;
      if (loaded) resolve(loaded);
      else reject(new Error('Stripe.js loaded but did not start.'));
    });
    script.addEventListener('error', () => {
      script.remove();
      reject(new Error('Stripe.js could not be loaded.'));
    });
    document.head.appendChild(script);
  });
}

const clients = new Map<string, StripeClient>();

/** One Stripe client per publishable key; a failed load is forgotten so the next call tries again. */
export async function loadStripe(jsUrl: string, publishableKey: string): Promise<StripeClient> {
  loading ??= loadScript(jsUrl).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  const Stripe = await loading;
  let client = clients.get(publishableKey);
  if (!client) {
    client = Stripe(publishableKey);
    clients.set(publishableKey, client);
  }
  return client;
}

/**
 * Stripe's payment method type for each of our methods with Stripe. UnionPay is a card brand there, and Apple Pay
 * and Google Pay are cards paid from a wallet: Stripe has no apple_pay or google_pay payment method type, and
 * Stripe.js refuses an Elements group that names one.
 */
export function stripeTypeOf(method: string): string {
  return method === 'unionpay' || method === 'apple_pay' || method === 'google_pay' ? 'card' : method;
}

/** Our method for what the tenant entered in the Payment Element. */
export function methodOfToken(token: ConfirmationToken): string | undefined {
  const preview = token.payment_method_preview;
  if (!preview) return undefined;
  if (preview.type === 'card') {
    const wallet = preview.card?.wallet?.type;
    if (wallet) return wallet;
    return preview.card?.brand === 'unionpay' ? 'unionpay' : 'card';
  }
  return preview.type;
}

/** Where a redirect method (Alipay) sends the tenant, when the PaymentIntent waits for one. */
export function redirectUrlOf(intent: StripeIntent | undefined): string | undefined {
  return intent?.next_action?.alipay_handle_redirect?.url ?? intent?.next_action?.redirect_to_url?.url;
}

/** What the tenant reads when Stripe.js gave up on a step: its reason (then that nothing was charged, what next). */
function stepFailure(error: StripeError, paymentId?: string): PaymentError {
  const authentication =
    error.code === 'payment_intent_authentication_failure' ||
    error.code === 'setup_intent_authentication_failure';
  return {
    code: 'payment_failed',
    message: error.message ?? 'Your bank’s check could not be completed.',
    ...(paymentId ? { payment_id: paymentId } : {}),
    ...(authentication ? { decline_code: 'authentication_failed' } : {}),
  };
}

/**
 * Stripe.js gave up on a payment's step (`handleNextAction` answered an error: a failed or closed 3DS check, a
 * lost connection). Our server's answer about the payment wins: it reads Stripe, so a payment Stripe failed (or
 * paid after all) ends as Stripe says. One still waiting is withdrawn, at Stripe too, so no late authentication
 * can charge it and the session can pay again; the tenant then reads Stripe.js's reason, with the form ready.
 */
export async function afterStepError(api: ClientApi, payment: Payment, error: StripeError): Promise<Payment> {
  let current = await api.payment(payment.payment_id);
  if (current.status === 'requires_action') {
    try {
      current = await api.cancelPayment(payment.payment_id);
    } catch (cancelError) {
      // E.g. 409: the payment ended first. Its real status wins.
      if (cancelError instanceof ApiProblem && cancelError.sessionExpired) throw cancelError;
      current = await api.payment(payment.payment_id);
    }
  }
  if (current.status === 'canceled' || current.status === 'requires_action') {
    const failure = stepFailure(error, payment.payment_id);
    throw new OutcomeError({ ...failure, message: tenantFailureMessage(failure) });
  }
  return current;
}

/** The same for a card being saved: a card still waiting after Stripe.js gave up is not saved. */
export async function afterCardStepError(
  api: ClientApi,
  card: SavedCard,
  error: StripeError,
): Promise<SavedCard> {
  const current = await api.card(card.card_id);
  if (current.status !== 'requires_action') return current;
  const failure = stepFailure(error);
  throw new OutcomeError({
    ...failure,
    message: `${failure.message} Your card was not saved, and you have not been charged.`,
  });
}
