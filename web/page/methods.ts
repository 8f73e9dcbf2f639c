/** The payment methods as the page names and groups them. */

import { APM_METHODS, WALLET_METHODS } from '../../src/shared/vocabulary.ts';
import type { PaymentMethod } from './api.ts';

export const METHOD_LABELS: Record<PaymentMethod, string> = {
  card: 'Card',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  alipay: 'Alipay',
  wechat_pay: 'WeChat Pay',
  unionpay: 'UnionPay',
};
export const WALLETS: readonly PaymentMethod[] = WALLET_METHODS;
export const APMS: readonly PaymentMethod[] = APM_METHODS;
