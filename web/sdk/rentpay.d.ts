/**
 * rentpay client SDK, version 1. Load it once per page, as an ES module (default export) from
 * `<service>/sdk/rentpay.js`, or as a classic script from `<service>/sdk/rentpay.umd.js` (global `SVC`).
 */

export type PaymentStatus = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'canceled';
export type PaymentMethod = 'card' | 'apple_pay' | 'google_pay' | 'alipay' | 'wechat_pay' | 'unionpay';

/** A payment, as in the session query and webhooks. Amounts are decimal strings in pounds. */
export interface Payment {
  payment_id: string;
  status: PaymentStatus;
  pure_amount: string;
  fee: string;
  amount: string;
  currency: 'GBP';
  method: PaymentMethod;
  card: { brand: string; last4: string; exp_month: number; exp_year: number } | null;
  reference: string;
  session_id: string;
  schedule_id: string | null;
  installment_number: number | null;
  failure_code: string | null;
  failure_message: string | null;
  /** Which payment processor handled it. */
  processor: 'sandbox' | 'stripe';
  /** The processor's id for this payment (e.g. a Stripe PaymentIntent "pi_…"); null until it has one. */
  processor_reference: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The codes the SDK and its form use (docs/sdk.md, Errors). `payment_failed` comes with `decline_code`
 * (e.g. `card_declined`); a refusal of the Client API passes its own code through (e.g. `feature_disabled`).
 */
export type RentpayErrorCode =
  | 'invalid_option'
  | 'container_not_found'
  | 'already_initialized'
  | 'not_initialized'
  | 'not_ready'
  | 'session_expired'
  | 'environment_mismatch'
  | 'load_failed'
  | 'validation_error'
  | 'payment_in_progress'
  | 'wallet_required'
  | 'payment_failed'
  | 'payment_canceled'
  | 'payment_pending'
  | 'amount_mismatch'
  | 'amount_changed'
  | 'integrator_suspended'
  | 'too_many_attempts'
  | 'rate_limited'
  | 'destroyed'
  | 'network'
  | 'unexpected';

/** What a promise of the SDK rejects with and what `onError` receives. */
export interface RentpayError {
  code: RentpayErrorCode | (string & {});
  message: string;
  payment_id?: string;
  decline_code?: string;
  /** amount_mismatch: the amount the platform fixed for this session, e.g. "1200.00". */
  pure_amount?: string;
  /** amount_changed: what the payment costs now; nothing was charged. */
  quote?: Quote;
}

/** A fresh price: pure amount, the method's fee and their total, as decimal strings. */
export interface Quote {
  pure_amount: string;
  fee: string;
  amount: string;
}

export interface Features {
  apms?: boolean;
  recurring?: boolean;
  wallets?: boolean;
  savedCards?: boolean;
}

export interface Appearance {
  theme?: 'default' | 'night' | 'flat';
  variables?: {
    colorPrimary?: string;
    colorBackground?: string;
    colorText?: string;
    colorDanger?: string;
    fontFamily?: string;
    fontSizeBase?: string;
    borderRadius?: string;
    spacingUnit?: string;
  };
}

export interface InitOptions {
  /** The service's origin, e.g. "https://pay.example", without a trailing slash. */
  apiBaseUrl: string;
  /** The user session token from user-login. */
  authToken: string;
  /** A CSS selector or an element; the form's iframe is added inside it. */
  container: string | HTMLElement;
  /**
   * Pounds, e.g. 1200.5. Omitted: the amount the platform set at user-login. On a session whose amount is fixed,
   * another amount (or isAmountEditable: true) rejects init with amount_mismatch. On a session without an amount
   * it is required unless isAmountEditable is true (then it pre-fills the field).
   */
  pure_amount?: number;
  isAmountEditable?: boolean;
  /** Attached to every payment of the session; default "SVC_<timestamp>". */
  reference?: string;
  /** Must match the service's environment; default "production". */
  environment?: 'sandbox' | 'production';
  debug?: boolean;
  features?: Features;
  appearance?: Appearance;
  onSuccess?: (payment: Payment) => void;
  onError?: (error: RentpayError) => void;
}

export interface ChangeEvent {
  method: PaymentMethod;
  pure_amount: string | null;
  fee: string;
  amount: string | null;
}

export interface ReadyEvent {
  environment: 'sandbox' | 'production';
}

export interface EventMap {
  ready: ReadyEvent;
  change: ChangeEvent;
  success: Payment;
  error: RentpayError;
  /** The session or its token lapsed while the form was open (session_expired): get a new token to pay. */
  expired: RentpayError;
}

export interface Rentpay {
  readonly version: string;
  /** Resolves when the form is ready; rejects with a RentpayError. */
  init(options: InitOptions): Promise<void>;
  /** Pays with the method chosen in the form. Wallet payments complete from their own button instead. */
  pay(): Promise<Payment>;
  /**
   * Changes the amount, reference or appearance of the form. Throws a RentpayError: invalid_option, or
   * amount_mismatch for another pure_amount on a session whose amount the platform fixed (nothing changes).
   */
  update(changes: { pure_amount?: number; reference?: string; appearance?: Appearance }): void;
  /** Removes the form and every listener; init may be called again. */
  destroy(): void;
  on<E extends keyof EventMap>(event: E, listener: (data: EventMap[E]) => void): void;
  off<E extends keyof EventMap>(event: E, listener: (data: EventMap[E]) => void): void;
}

declare const SVC: Rentpay;
export default SVC;
