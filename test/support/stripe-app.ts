/** Shared by the Stripe suites: an app whose processor is Stripe, pointed at the local stand-in (test/support/stripe-server.ts). */
import assert from 'node:assert/strict';
import type { Config, ServiceEnv } from '../../src/platform/config/config.ts';
import { type Api, integrationApi, send, UNLIMITED } from './api-client.ts';
import { runJobs, startTestApp, type TestApp } from './helpers.ts';
import type { Tenant } from './payment-client.ts';
import { StripeStandIn } from './stripe-server.ts';

export const STRIPE_WEBHOOK_SECRET = 'whsec_rentpay_test_endpoint';
export const STRIPE_WEBHOOK_PATH = '/api/processors/stripe/webhook';

export function stripeConfig(stand: StripeStandIn, serviceEnv: ServiceEnv = 'sandbox'): Partial<Config> {
  const mode = serviceEnv === 'production' ? 'live' : 'test';
  return {
    serviceEnv,
    // Production requires one; sandbox would generate one.
    documentEncryptionKey: Buffer.alloc(32, 3),
    paymentProcessor: 'stripe',
    stripe: {
      secretKey: `sk_${mode}_rentpay_standin`,
      publishableKey: `pk_${mode}_rentpay_standin`,
      webhookSecret: STRIPE_WEBHOOK_SECRET,
      apiBase: stand.url,
      jsUrl: `${stand.url}/js/v3/`,
    },
  };
}

export interface StripeApp {
  t: TestApp;
  stand: StripeStandIn;
  api: Api;
  close(): Promise<void>;
}

/** A fresh app on Stripe (card fee 1.45 %: £1200.00 costs £1217.40) with one integrator, and its stand-in. */
export async function startStripeApp(
  options: { serviceEnv?: ServiceEnv; fees?: Record<string, { percent: string; fixed: string }> } = {},
): Promise<StripeApp> {
  const stand = await StripeStandIn.start();
  const t = await startTestApp({ config: stripeConfig(stand, options.serviceEnv) });
  // Funds become available settlementDays after a charge on the app's (fake) clock, as on Stripe's.
  stand.now = () => t.clock.now().getTime();
  const fees = options.fees ?? { card: { percent: '1.45', fixed: '0.00' } };
  // In production a tenant fee needs the declaration that the tenants are businesses.
  const business_lets = options.serviceEnv === 'production';
  const api = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, fees, business_lets }));
  return {
    t,
    stand,
    api,
    async close() {
      await t.close();
      await stand.close();
    },
  };
}

/** A ConfirmationToken id as Stripe.js would create it from the Payment Element (`pm_card_visa`, `alipay`, …). */
export function confirmationToken(stand: StripeStandIn, paymentMethod: string): string {
  return stand.createConfirmationToken(paymentMethod).id;
}

/** The stand-in's PaymentIntent `id` (failing the test when Stripe has none). */
export function intentAt(stand: StripeStandIn, id: string): Record<string, unknown> & { id: string } {
  const intent = stand.paymentIntents.get(id);
  assert.ok(intent, `no PaymentIntent ${id} at Stripe`);
  return intent;
}

/** Saves `testCard` for the tenant; with 3DS on set-up, authenticates it and applies Stripe's event. */
export async function saveStripeCard(s: StripeApp, tenant: Tenant, testCard: string): Promise<string> {
  const saved = await tenant.client.saveCard(confirmationToken(s.stand, testCard));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  if (saved.body.status === 'requires_action') {
    const setupId = [...s.stand.setupIntents.values()].find(
      (setup) => setup.client_secret === saved.body.next_action.client_secret,
    )!.id;
    s.stand.completeAction(setupId, true);
    await deliverStripeEvents(s.t, s.stand);
  }
  const card = await tenant.client.card(saved.body.card_id);
  assert.equal(card.body.status, 'active');
  return saved.body.card_id;
}

/** POSTs an event to the webhook endpoint, signed as Stripe signs it (or with `signature` as given). */
export function postStripeEvent(t: TestApp, body: string, signature: string | undefined) {
  return send(t, {
    method: 'POST',
    url: STRIPE_WEBHOOK_PATH,
    headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
    payload: body,
  });
}

/**
 * Sends every event the stand-in has not sent yet to the app, as Stripe would, each applied (its job run) before
 * the next is sent.
 * Stripe promises neither order nor a single delivery: `reversed` sends them newest first, `twice` sends each again.
 */
export async function deliverStripeEvents(
  t: TestApp,
  stand: StripeStandIn,
  delivery: { reversed?: boolean; twice?: boolean } = {},
): Promise<void> {
  const pending = stand.events.filter((e) => !e.delivered);
  if (delivery.reversed) pending.reverse();
  for (const event of delivery.twice ? [...pending, ...pending] : pending) {
    const { body, signature } = stand.signedEvent(event.type, event.object, STRIPE_WEBHOOK_SECRET, event.id);
    const answer = await postStripeEvent(t, body, signature);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    event.delivered = true;
    // Applied before the next one arrives, so the order they are applied in is the order they were sent in.
    await runJobs(t);
  }
  await runJobs(t);
}
