/** The payment methods as the page names and groups them. */

import { APM_METHODS, WALLET_METHODS } from '../../src/shared/vocabulary.ts';
import type { PaymentMethod } from './api.ts';

export { METHOD_LABELS } from '../../src/shared/vocabulary.ts';
export const WALLETS: readonly PaymentMethod[] = WALLET_METHODS;
export const APMS: readonly PaymentMethod[] = APM_METHODS;
