import type { Logger } from 'pino';
import type { Clock } from '../platform/clock/clock.ts';
import type { Config } from '../platform/config/config.ts';
import type { Db } from '../platform/db/db.ts';
import type { PaymentProcessor } from './processor.ts';
import { SandboxProcessor } from './sandbox/processor.ts';
import { StripeProcessor } from './stripe/processor.ts';

/** The deployment's processor: Stripe when configured (always in production), else the sandbox processor. */
export function createPaymentProcessor(config: Config, db: Db, clock: Clock, log?: Logger): PaymentProcessor {
  if (config.paymentProcessor === 'stripe') {
    if (!config.stripe) throw new Error('PAYMENT_PROCESSOR=stripe without Stripe settings');
    return new StripeProcessor(db, config.stripe, config.publicUrl, log);
  }
  if (config.serviceEnv !== 'sandbox') throw new Error('The sandbox processor never runs in production.');
  return new SandboxProcessor(db, clock, config.publicUrl);
}
