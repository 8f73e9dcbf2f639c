/**
 * `npm run smoke:stripe` (`rentpay smoke-stripe`; compiled, so a production install runs it too): rentpay in this process on an in-memory database, with its job worker, against real
 * Stripe test mode, end to end (the parts are in scripts/smoke-stripe/):
 *   1. a card payment: a ConfirmationToken for pm_card_visa (Stripe's test helper, as Stripe.js would make from
 *      the Payment Element) → payment → Stripe's event to our webhook endpoint → session `completed` → the
 *      funds' available_on;
 *   2. WeChat Pay and Alipay: each payment waits for the tenant (the PaymentIntent shows the QR code or the
 *      redirect back to our return page), then is canceled through the Client API;
 *   3. an off-session recurring charge: a card saved through the Client API, a schedule set up, run with the
 *      sandbox test clock on its due date;
 *   4. a partial refund of the card payment by the integrator, with Stripe's events, until it has succeeded.
 * Stripe cannot reach this machine, so the script reads the events from Stripe's Events API and posts each to the
 * endpoint, signed as Stripe signs them. Each step prints a numbered `·` line; a failure prints
 * `smoke:stripe FAILED: <part>: <what>` and exits 1.
 *
 * Needs STRIPE_SECRET_KEY (sk_test_…) and STRIPE_PUBLISHABLE_KEY (pk_test_…). Without them it says so and exits 0.
 * The Stripe account needs WeChat Pay and Alipay turned on (test mode) for GBP payments.
 */
import { randomBytes } from 'node:crypto';
import { buildApp } from '../app.ts';
import { jobHandlers } from '../jobs.ts';
import { systemClock } from '../platform/clock/clock.ts';
import { loadConfig } from '../platform/config/config.ts';
import { Worker } from '../platform/jobs/worker.ts';
import { createLogger } from '../platform/log/logger.ts';
import { stripeClient } from '../processors/stripe/processor.ts';
import { apmPayments } from './apms.ts';
import { cardPayment } from './card.ts';
import { fail, onboard, Smoke, step, stripeErrorDetail } from './harness.ts';
import { recurringCharge } from './recurring.ts';
import { partialRefund } from './refund.ts';

export async function runStripeSmoke(): Promise<void> {
  const secretKey = process.env.STRIPE_SECRET_KEY?.trim();
  if (!secretKey) {
    console.log(
      'smoke:stripe skipped: set STRIPE_SECRET_KEY (sk_test_…) and STRIPE_PUBLISHABLE_KEY (pk_test_…) to run it.',
    );
    process.exit(0);
  }
  if (!/^(sk|rk)_test_/.test(secretKey)) {
    console.error(
      'smoke:stripe: STRIPE_SECRET_KEY must be a test-mode key (sk_test_ or rk_test_); it makes real payments.',
    );
    process.exit(1);
  }

  const OPERATOR_TOKEN = `op_smoke_${randomBytes(8).toString('hex')}`;
  const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

  const config = loadConfig({
    ...process.env,
    SERVICE_ENV: 'sandbox',
    PAYMENT_PROCESSOR: 'stripe',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    DATA_DIR: 'memory://',
    DATABASE_URL: '',
    OPERATOR_TOKEN,
    LOG_LEVEL: 'warn',
  });
  // STRIPE_API_BASE (e.g. a local Stripe-compatible server) applies to the script's own calls too.
  const stripe = stripeClient(config.stripe!);
  const app = await buildApp(config);
  await app.ready();
  const worker = new Worker({
    db: app.ctx.db,
    clock: systemClock,
    log: createLogger('warn'),
    handlers: jobHandlers(config, app.ctx),
  });
  const smoke = new Smoke(app, stripe, worker, OPERATOR_TOKEN, WEBHOOK_SECRET);

  try {
    // Every feature (APMs, saved cards, recurring) is on unless turned off; APMs have no fee.
    const integrator = await smoke.operator('POST', '/api/operator/integrators', {
      name: 'Smoke test platform',
      fees: { card: { percent: '1.45', fixed: '0.00' } },
    });
    if (integrator.status !== 201) fail('creating the integrator', integrator.body);
    const features = integrator.body.features as Record<string, boolean>;
    const off = ['apms', 'savedCards', 'recurring'].filter((feature) => features?.[feature] !== true);
    if (off.length > 0) fail(`the integrator has ${off.join(', ')} off`, integrator.body);
    const server = `Token ${integrator.body.server_token}`;
    step(`integrator ${integrator.body.integrator_id}`);
    const payer = await onboard(smoke, server, 1);
    const saver = { userId: 2, email: await onboard(smoke, server, 2) };
    step(`users 1 and 2 onboarded (${payer}, ${saver.email})`);

    const paid = await cardPayment(smoke, server, payer);
    await apmPayments(smoke, server, payer);
    await recurringCharge(smoke, server, saver);
    await partialRefund(smoke, server, paid);
    console.log('smoke:stripe passed');
  } catch (error) {
    fail(
      error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stripeErrorDetail(error),
    );
  } finally {
    await app.close();
  }
}
