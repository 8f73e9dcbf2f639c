/**
 * `npm run smoke:stripe`: one rent payment through real Stripe test mode, end to end, with rentpay in this
 * process on an in-memory database: onboard → user-login → a ConfirmationToken for pm_card_visa (Stripe's test
 * helper, as Stripe.js would make from the Payment Element) → payment → Stripe's event to our webhook endpoint
 * → session `completed`. Stripe cannot reach this machine, so the script reads the PaymentIntent's events from
 * Stripe's Events API and posts each to the endpoint, signed as Stripe signs them.
 *
 * Needs STRIPE_SECRET_KEY (sk_test_…) and STRIPE_PUBLISHABLE_KEY (pk_test_…). Without them it says so and exits 0.
 */
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { jobHandlers } from '../src/jobs.ts';
import { systemClock } from '../src/platform/clock/clock.ts';
import { loadConfig } from '../src/platform/config/config.ts';
import { Worker } from '../src/platform/jobs/worker.ts';
import { createLogger } from '../src/platform/log/logger.ts';
import { stripeClient } from '../src/processors/stripe/processor.ts';

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

function step(message: string): void {
  console.log(`· ${message}`);
}

function fail(message: string, detail?: unknown): never {
  console.error(`smoke:stripe FAILED: ${message}`);
  if (detail !== undefined)
    console.error(typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2));
  process.exit(1);
}

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

async function call(method: 'GET' | 'POST', url: string, token: string, payload?: unknown, headers = {}) {
  const answer = await app.inject({
    method,
    url,
    headers: { authorization: token, ...headers },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: answer.statusCode, body: answer.body ? answer.json() : undefined };
}

try {
  const integrator = await call('POST', '/api/operator/integrators', `Bearer ${OPERATOR_TOKEN}`, {
    name: 'Smoke test platform',
    fees: { card: { percent: '1.45', fixed: '0.00' } },
  });
  if (integrator.status !== 201) fail('creating the integrator', integrator.body);
  const server = `Token ${integrator.body.server_token}`;
  step(`integrator ${integrator.body.integrator_id}`);

  const email = `smoke-${Date.now()}@example.com`;
  const onboard = await call('POST', '/api/third-party/onboarding/', server, {
    user_id: 1,
    email,
    first_name: 'Ada',
    last_name: 'Lovelace',
    phone_number: '+447700900123',
    date_of_birth: '1990-12-10',
    kyc: { pii_front: null, pii_back: null, photo: null, status: 'pending' },
    tenant: [
      {
        post_code: 'SW1A 1AA',
        address_1: '10 Downing Street',
        city: 'London',
        country: 'United Kingdom',
        is_primary: true,
        start_rent_date: '2026-01-01',
        end_rent_date: '2026-12-31',
        rent_due_day: 1,
        amount: '12.00',
        frequency: 'every_1_month',
        is_active: true,
        payment_reference: 'SMOKE-1',
        recipient_bank_sort_code: '12-34-56',
        recipient_bank_account_number: '12345678',
        recipient_bank_account_name: 'Landlord Ltd',
        agreement: 'https://example.com/tenancy-agreement.pdf',
      },
    ],
  });
  if (onboard.status >= 300) fail('onboarding', onboard.body);
  const login = await call('POST', '/api/third-party/user-login/', server, { email });
  if (login.status !== 200) fail('user-login', login.body);
  const client = `Bearer ${login.body.token}`;
  step(`session ${login.body.session_id}`);

  const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: 'pm_card_visa' });
  step(`confirmation token ${token.id}`);
  const payment = await call(
    'POST',
    '/api/client/payments',
    client,
    { method: 'card', confirmation_token: token.id, pure_amount: '12.00', expected_amount: '12.17' },
    { 'idempotency-key': `smoke-${randomBytes(8).toString('hex')}` },
  );
  if (payment.status !== 201) fail('paying', payment.body);
  step(`payment ${payment.body.payment_id}: ${payment.body.status} (${payment.body.processor_reference})`);
  if (payment.body.status !== 'succeeded') fail('the payment did not succeed', payment.body);

  // Stripe's events for this PaymentIntent, as its webhook would deliver them to our endpoint.
  const intentId = payment.body.processor_reference as string;
  let delivered = 0;
  for (let attempt = 0; attempt < 20 && delivered === 0; attempt++) {
    const events = await stripe.events.list({ type: 'payment_intent.succeeded', limit: 20 });
    for (const event of events.data) {
      if ((event.data.object as { id?: string }).id !== intentId) continue;
      const body = JSON.stringify(event);
      const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
      const answer = await app.inject({
        method: 'POST',
        url: '/api/processors/stripe/webhook',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload: body,
      });
      if (answer.statusCode !== 200) fail('the webhook endpoint refused Stripe’s event', answer.body);
      delivered++;
    }
    if (delivered === 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  if (delivered === 0) fail(`Stripe listed no payment_intent.succeeded event for ${intentId}`);
  await worker.drain();
  step(`webhook: ${delivered} event(s) applied`);

  const session = await call('GET', `/api/third-party/session/${login.body.session_id}/`, server);
  if (session.status !== 200) fail('the session query', session.body);
  if (session.body.status !== 'completed') fail('the session is not completed', session.body);
  step('session completed');

  // The settlement job (run by the drain above) read when Stripe makes the payment's funds available.
  const [settled] = await app.ctx.db.query<{ available_on: string | null }>(
    "SELECT to_char(funds_available_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS available_on FROM payments WHERE id = $1",
    [payment.body.payment_id],
  );
  if (!settled?.available_on) fail('no available_on was read from the payment’s balance transaction');
  step(`funds available on ${settled!.available_on}`);
  console.log('smoke:stripe passed');
} catch (error) {
  fail(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
} finally {
  await app.close();
}
