/** The payment methods as the page names and groups them. */

import type { PaymentMethod } from './api.ts';

export const METHOD_LABELS: Record<PaymentMethod, string> = {
  card: 'Card',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  alipay: 'Alipay',
  wechat_pay: 'WeChat Pay',
  unionpay: 'UnionPay',
};
export const WALLETS: readonly PaymentMethod[] = ['apple_pay', 'google_pay'];
export const APMS: readonly PaymentMethod[] = ['alipay', 'wechat_pay', 'unionpay'];
