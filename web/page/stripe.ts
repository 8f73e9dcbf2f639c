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
  setupFutureUsage?: 'off_session';
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

/** Stripe's payment method type for each of our methods with Stripe (UnionPay is a card brand there). */
export function stripeTypeOf(method: string): string {
  return method === 'unionpay' ? 'card' : method;
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
