import type { Clock } from '../platform/clock/clock.ts';
import type { Config } from '../platform/config/config.ts';
import type { Db } from '../platform/db/db.ts';
import type { PaymentProcessor } from './processor.ts';
import { SandboxProcessor } from './sandbox/processor.ts';

/** The deployment's processor. loadConfig already refuses production without a real one (none exists yet). */
export function createPaymentProcessor(config: Config, db: Db, clock: Clock): PaymentProcessor {
  if (config.serviceEnv !== 'sandbox') {
    throw new Error('No real payment processor is built in; production cannot take payments.');
  }
  return new SandboxProcessor(db, clock, config.publicUrl);
}
