/** The words every side uses (server, page, SDK, CLI): payment methods, features and statuses, once. */

export const PAYMENT_METHODS = [
  'card',
  'apple_pay',
  'google_pay',
  'alipay',
  'wechat_pay',
  'unionpay',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Each method's name for people. */
export const METHOD_LABELS: Readonly<Record<PaymentMethod, string>> = {
  card: 'Card',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  alipay: 'Alipay',
  wechat_pay: 'WeChat Pay',
  unionpay: 'UnionPay',
};

/** Methods that pay with a token from a wallet sheet (card details inside, one-time). */
export const WALLET_METHODS = ['apple_pay', 'google_pay'] as const satisfies readonly PaymentMethod[];
export type WalletMethod = (typeof WALLET_METHODS)[number];

/** Alternative payment methods: no token, the customer approves at the provider (a redirect or a QR code). */
export const APM_METHODS = ['alipay', 'wechat_pay', 'unionpay'] as const satisfies readonly PaymentMethod[];
export type ApmMethod = (typeof APM_METHODS)[number];

/** Features of the page and SDK; the operator can turn each off per integrator. */
export const FEATURES = ['apms', 'wallets', 'recurring', 'savedCards'] as const;
export type Feature = (typeof FEATURES)[number];

export const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const SCHEDULE_STATUSES = ['active', 'paused', 'canceled', 'completed'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** A saved card as the tenant sees it (a deleted one is never shown). */
export const SAVED_CARD_STATUSES = ['requires_action', 'active', 'failed'] as const;
export type SavedCardStatus = (typeof SAVED_CARD_STATUSES)[number];

/** How often a tenancy's rent is due. */
export const FREQUENCIES = [
  'every_1_month',
  'every_2_month',
  'every_3_month',
  'every_4_month',
  'every_5_month',
  'every_half_year',
  'every_year',
] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** A tenancy's installment plan as stored: amounts in pence, due dates as YYYY-MM-DD. */
export interface InstallmentPlan {
  total_amount_pence: number | null;
  installments: { installment_number: number; due_date: string; amount_pence: number }[];
}

/** The User-Agent the rentpay CLI sends to the Operator API, so the audit log can say a change came from the CLI. */
export const CLI_USER_AGENT = 'rentpay-cli/1';
