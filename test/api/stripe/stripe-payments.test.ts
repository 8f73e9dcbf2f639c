/**
 * Payments with the Stripe processor, through the Client API and the official `stripe` package against the local
 * Stripe stand-in: new cards, declines, 3DS, Alipay, method checks, idempotency and the notification endpoint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APPLE_PAY_DOMAIN_PATH } from '../../../src/processors/stripe/plugin.ts';
import { assertError, integrationApi, UNLIMITED } from '../../support/api-client.ts';
import { runJobs, startTestApp } from '../../support/helpers.ts';
import { cardToken, count, newTenant, PAN, paymentEvents } from '../../support/payment-client.ts';
import {
  confirmationToken,
  deliverStripeEvents,
  intentAt,
  postStripeEvent,
  STRIPE_WEBHOOK_SECRET,
  type StripeApp,
  startStripeApp,
  stripeConfig,
} from '../../support/stripe-app.ts';
import { Receiver, verify } from '../../support/webhook-receiver.ts';

let s: StripeApp;
before(async () => {
  s = await startStripeApp();
});
after(() => s.close());

const intentOf = (id: string) => intentAt(s.stand, id);

describe('Stripe payments: the Client API with confirmation tokens', () => {
  it('a new card pays at once: a PaymentIntent for the total, on the user’s Customer, keyed by our payment id', async () => {
    const tenant = await newTenant(s.t, s.api);
    const session = await s.api.clientSession(tenant.client.token);
    assert.equal(session.body.processor.name, 'stripe');
    assert.deepEqual(session.body.processor.stripe, {
      publishable_key: 'pk_test_rentpay_standin',
      js_url: `${s.stand.url}/js/v3/`,
    });
    assert.equal(session.body.processor.tokenize_url, null);

    const paid = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
      expected_amount: '1217.40',
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'succeeded');
    assert.equal(paid.body.amount, '1217.40');
    assert.deepEqual(paid.body.card, { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 });
    assert.equal(paid.body.processor, 'stripe');
    assert.match(paid.body.processor_reference, /^pi_/);

    const intent = intentOf(paid.body.processor_reference);
    assert.equal(intent.amount, 121740);
    assert.equal(intent.currency, 'gbp');
    assert.deepEqual(intent.metadata, {
      payment_id: paid.body.payment_id,
      session_id: tenant.sessionId,
      integrator_id: s.api.integratorId,
    });
    const [customer] = await s.t.db.query<{ customer_id: string }>(
      `SELECT customer_id FROM processor_customers c JOIN users u ON u.id = c.user_id WHERE u.email = $1`,
      [tenant.email],
    );
    assert.equal(intent.customer, customer!.customer_id);
    assert.equal(s.stand.customers.get(customer!.customer_id)?.email, tenant.email);
    const create = s.stand.requests.find((r) => r.path === '/v1/payment_intents' && r.method === 'POST');
    assert.ok(create);
    assert.ok(
      s.stand.requests.some(
        (r) => r.path === '/v1/payment_intents' && r.idempotencyKey === paid.body.payment_id,
      ),
      'our payment id is the idempotency key',
    );
    assert.deepEqual(await paymentEvents(s.t, paid.body.payment_id), ['payment_success']);
    const view = await s.api.session(tenant.sessionId);
    assert.equal(view.body.status, 'completed');

    // Stripe's own events about it afterwards change nothing and record nothing more.
    await deliverStripeEvents(s.t, s.stand);
    assert.deepEqual(await paymentEvents(s.t, paid.body.payment_id), ['payment_success']);
  });

  it('the same idempotency key again is the same payment: Stripe is not asked again', async () => {
    const tenant = await newTenant(s.t, s.api);
    const body = {
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
      idempotency_key: 'stripe-once',
    };
    const first = await tenant.client.pay(body);
    const intents = s.stand.paymentIntents.size;
    const again = await tenant.client.pay(body);
    assert.equal(again.status, 200);
    assert.equal(again.body.payment_id, first.body.payment_id);
    assert.equal(s.stand.paymentIntents.size, intents);
  });

  it('a decline fails the payment with the issuer’s reason and cancels its PaymentIntent', async () => {
    const tenant = await newTenant(s.t, s.api);
    const declined = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_chargeDeclinedInsufficientFunds'),
    });
    assert.equal(declined.status, 201, JSON.stringify(declined.body));
    assert.equal(declined.body.status, 'failed');
    assert.equal(declined.body.failure_code, 'insufficient_funds');
    assert.equal(declined.body.failure_message, 'Your card has insufficient funds.');
    assert.equal(intentOf(declined.body.processor_reference).status, 'canceled');
    assert.deepEqual(await paymentEvents(s.t, declined.body.payment_id), ['payment_failed']);
    // It counts against the card-testing limits like a sandbox decline.
    assert.equal(
      await count(s.t, 'card_declines WHERE session_id = $1 AND NOT pending', [tenant.sessionId]),
      1,
    );
    const retry = await tenant.client.pay({ confirmation_token: confirmationToken(s.stand, 'pm_card_visa') });
    assert.equal(retry.body.status, 'succeeded');
  });

  it('3DS: requires_action with the client secret for Stripe.js; authenticated, Stripe’s event completes it', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_authenticationRequired'),
    });
    assert.equal(started.body.status, 'requires_action', JSON.stringify(started.body));
    const intent = intentOf(started.body.processor_reference);
    assert.deepEqual(started.body.next_action, {
      type: 'stripe_next_action',
      client_secret: intent.client_secret,
    });
    s.stand.completeAction(intent.id, true);
    await deliverStripeEvents(s.t, s.stand);
    const done = await tenant.client.payment(started.body.payment_id);
    assert.equal(done.body.status, 'succeeded');
    assert.equal(done.body.next_action, null);
    assert.deepEqual(await paymentEvents(s.t, started.body.payment_id), ['payment_success']);
  });

  it('3DS failed: the payment fails (authentication_failed) and its PaymentIntent is canceled', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_authenticationRequired'),
    });
    s.stand.completeAction(started.body.processor_reference, false);
    await deliverStripeEvents(s.t, s.stand);
    const done = await tenant.client.payment(started.body.payment_id);
    assert.equal(done.body.status, 'failed');
    assert.equal(done.body.failure_code, 'authentication_failed');
    assert.equal(intentOf(started.body.processor_reference).status, 'canceled', 'its client secret is spent');
  });

  it('Alipay: a redirect that returns to /third-party/return; approved, the payment succeeds', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      method: 'alipay',
      confirmation_token: confirmationToken(s.stand, 'alipay'),
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.status, 'requires_action');
    assert.equal(started.body.card, null);
    const intent = intentOf(started.body.processor_reference);
    assert.equal((intent.next_action as { type: string }).type, 'alipay_handle_redirect');
    const returnUrl = (intent.next_action as { alipay_handle_redirect: { return_url: string } })
      .alipay_handle_redirect.return_url;
    assert.equal(returnUrl, `${s.t.config.publicUrl}/third-party/return`);
    s.stand.completeAction(intent.id, true);
    await deliverStripeEvents(s.t, s.stand);
    assert.equal((await tenant.client.payment(started.body.payment_id)).body.status, 'succeeded');

    const page = await s.t.app.inject({
      method: 'GET',
      url: '/third-party/return?redirect_status=succeeded',
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(
      page.headers['content-security-policy'] as string,
      /default-src 'none'; script-src 'sha256-/,
    );
  });

  it('the method must match what the Payment Element collected; nothing is sent to Stripe otherwise', async () => {
    const tenant = await newTenant(s.t, s.api);
    const intents = s.stand.paymentIntents.size;
    const unionpayAsCard = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_unionpay'),
    });
    assert.equal(unionpayAsCard.status, 400);
    assert.deepEqual(unionpayAsCard.body, {
      method: [
        'The payment details collected are for method "unionpay", not "card"; send method "unionpay".',
      ],
    });
    const cardAsAlipay = await tenant.client.pay({
      method: 'alipay',
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
    });
    assert.deepEqual(cardAsAlipay.body, {
      method: ['The payment details collected are for method "card", not "alipay"; send method "card".'],
    });
    const unknown = await tenant.client.pay({ confirmation_token: 'ctoken_doesnotexist' });
    assert.deepEqual(unknown.body, {
      confirmation_token: ['Unknown confirmation token; collect the payment details again.'],
    });
    const sandboxToken = await tenant.client.pay({ card_token: 'tok_sandbox_abc' });
    assert.deepEqual(sandboxToken.body, {
      card_token: ['Not used with Stripe: send the confirmation_token from the Payment Element.'],
      confirmation_token: ['This field (or saved_card_id) is required.'],
    });
    assert.equal(s.stand.paymentIntents.size, intents, 'no PaymentIntent was created');
    assert.equal(await count(s.t, 'payments WHERE session_id = $1', [tenant.sessionId]), 0);

    const unionpay = await tenant.client.pay({
      method: 'unionpay',
      confirmation_token: confirmationToken(s.stand, 'pm_card_unionpay'),
    });
    assert.equal(unionpay.body.status, 'succeeded', JSON.stringify(unionpay.body));
    assert.equal(unionpay.body.card.brand, 'unionpay');
  });

  it('a payment whose answer was lost is reconciled from its PaymentIntent, never charged twice', async () => {
    const tenant = await newTenant(s.t, s.api);
    const token = confirmationToken(s.stand, 'pm_card_visa');
    const paid = await tenant.client.pay({ confirmation_token: token, idempotency_key: 'lost-answer' });
    const paymentId = paid.body.payment_id;
    // As if the process had died after Stripe charged and before the outcome was written.
    await s.t.db.query(
      "UPDATE payments SET status = 'processing', processor_payment_id = NULL, updated_at = now() WHERE id = $1",
      [paymentId],
    );
    await s.t.db.query("DELETE FROM events WHERE data->'payment'->>'payment_id' = $1", [paymentId]);
    const intents = s.stand.paymentIntents.size;
    s.t.clock.advance(3 * 60_000);
    await runJobs(s.t);
    const reconciled = await tenant.client.payment(paymentId);
    assert.equal(reconciled.body.status, 'succeeded');
    assert.equal(reconciled.body.processor_reference, paid.body.processor_reference);
    assert.equal(s.stand.paymentIntents.size, intents, 'the replayed create made no second PaymentIntent');
    assert.deepEqual(await paymentEvents(s.t, paymentId), ['payment_success']);
  });
});

describe('Stripe’s event endpoint', () => {
  const intentEvent = (status: string) => ({
    id: 'pi_unknown_to_us',
    object: 'payment_intent',
    status,
    client_secret: 'pi_unknown_to_us_secret_x',
    last_payment_error: null,
  });

  it('refuses a missing, wrong or stale signature with 400 and queues nothing', async () => {
    const jobs = await count(s.t, "jobs WHERE kind = 'payment.notification'");
    const { body, signature } = s.stand.signedEvent(
      'payment_intent.succeeded',
      intentEvent('succeeded'),
      STRIPE_WEBHOOK_SECRET,
    );
    assertError(await postStripeEvent(s.t, body, undefined), 400, 'invalid_signature', /header is missing/);
    const wrong = s.stand.signedEvent('payment_intent.succeeded', intentEvent('succeeded'), 'whsec_other');
    assertError(await postStripeEvent(s.t, wrong.body, wrong.signature), 400, 'invalid_signature');
    assertError(
      await postStripeEvent(s.t, body.replace('succeeded', 'canceled'), signature),
      400,
      'invalid_signature',
      /STRIPE_WEBHOOK_SECRET/,
    );
    const staleAt = Math.floor(Date.now() / 1000) - 301;
    const stale = (await import('stripe')).default.webhooks.generateTestHeaderString({
      payload: body,
      secret: STRIPE_WEBHOOK_SECRET,
      timestamp: staleAt,
    });
    assertError(await postStripeEvent(s.t, body, stale), 400, 'invalid_signature', /tolerance/);
    assert.equal(await count(s.t, "jobs WHERE kind = 'payment.notification'"), jobs);
  });

  it('answers 200 to events it does not apply, and queues the same event once however often it comes', async () => {
    const ignored = s.stand.signedEvent(
      'customer.created',
      { id: 'cus_1', object: 'customer' },
      STRIPE_WEBHOOK_SECRET,
    );
    const answer = await postStripeEvent(s.t, ignored.body, ignored.signature);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { received: true, applied: false });

    const jobs = await count(s.t, "jobs WHERE kind = 'payment.notification'");
    const event = s.stand.signedEvent(
      'payment_intent.succeeded',
      intentEvent('succeeded'),
      STRIPE_WEBHOOK_SECRET,
    );
    for (let i = 0; i < 3; i++) {
      const again = await postStripeEvent(s.t, event.body, event.signature);
      // Only the first is applied; the duplicates are received and dropped, and say so.
      assert.deepEqual([again.status, again.body], [200, { received: true, applied: i === 0 }]);
    }
    assert.equal(await count(s.t, "jobs WHERE kind = 'payment.notification'"), jobs + 1);
    await runJobs(s.t);
  });
});

describe('Stripe mode: what the page is told, and Apple Pay’s domain file', () => {
  it('the client session names Stripe’s publishable key and Stripe.js, and no tokenisation URL or wallet sheet', async () => {
    const tenant = await newTenant(s.t, s.api);
    const session = await tenant.client.call('GET', '/session');
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.processor, {
      name: 'stripe',
      tokenize_url: null,
      wallet_url: null,
      stripe: { publishable_key: 'pk_test_rentpay_standin', js_url: `${s.stand.url}/js/v3/` },
    });
    // Wallets pay through Stripe's Express Checkout Element instead of a sheet of ours.
    assert.equal(session.body.features.wallets, true);
  });

  it('serves the domain-association file at Apple’s well-known path only when one is configured', async () => {
    const missing = await s.t.app.inject({ method: 'GET', url: APPLE_PAY_DOMAIN_PATH });
    assert.equal(missing.statusCode, 404);
    const t = await startTestApp({
      config: {
        ...stripeConfig(s.stand),
        stripe: { ...stripeConfig(s.stand).stripe!, applePayDomainAssociation: '7B227073704964223A22...\n' },
      },
    });
    try {
      const served = await t.app.inject({ method: 'GET', url: APPLE_PAY_DOMAIN_PATH });
      assert.equal(served.statusCode, 200);
      assert.match(String(served.headers['content-type']), /^text\/plain/);
      assert.equal(served.body, '7B227073704964223A22...\n');
    } finally {
      await t.close();
    }
  });
});

describe('the integrator’s webhooks with Stripe', () => {
  it('a Stripe payment sends the same signed payment_success as a sandbox payment, with processor "stripe"', async () => {
    const receiver = await Receiver.start();
    const fees = { card: { percent: '1.45', fixed: '0.00' } };
    const stripeApp = await startTestApp({
      config: { ...stripeConfig(s.stand), allowPrivateWebhookHosts: true },
    });
    const sandboxApp = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
    try {
      // biome-ignore lint/suspicious/noExplicitAny: JSON bodies, compared field by field
      const delivered: Record<string, any>[] = [];
      for (const [t, pay] of [
        [stripeApp, () => ({ confirmation_token: confirmationToken(s.stand, 'pm_card_visa') })],
        [sandboxApp, async () => ({ card_token: await cardToken(sandboxApp, PAN.visa) })],
      ] as const) {
        const integrator = await t.createIntegrator({ ...UNLIMITED, fees, webhook_url: receiver.url });
        const tenant = await newTenant(t, integrationApi(t, integrator));
        const paid = await tenant.client.pay({ ...(await pay()), expected_amount: '1217.40' });
        assert.equal(paid.status, 201, JSON.stringify(paid.body));
        const before = receiver.received.length;
        await runJobs(t);
        const arrived = receiver.received
          .slice(before)
          // biome-ignore lint/suspicious/noExplicitAny: a JSON body
          .map((request) => verify(integrator.webhookSecret, request, t.clock.now()) as Record<string, any>)
          .filter((body) => body.data?.payment?.payment_id === paid.body.payment_id);
        assert.deepEqual(
          arrived.map((body) => body.type),
          ['payment_success'],
        );
        const { next_action: _, ...payment } = paid.body;
        // The webhook's payment is the Client API's, with where the platform fetches its receipt.
        assert.deepEqual(arrived[0]!.data.payment, {
          ...payment,
          receipt_url: `/api/third-party/payments/${paid.body.payment_id}/receipt.pdf`,
        });
        delivered.push(arrived[0]!);
      }
      const [viaStripe, viaSandbox] = delivered;
      const shape = (body: Record<string, unknown>) =>
        JSON.stringify(body, (_key, value) =>
          value && typeof value === 'object' && !Array.isArray(value)
            ? Object.fromEntries(
                Object.keys(value)
                  .sort()
                  .map((key) => [key, value[key]]),
              )
            : typeof value,
        );
      assert.equal(shape(viaStripe!), shape(viaSandbox!), 'the same fields, of the same types');
      assert.equal(viaStripe!.data.payment.processor, 'stripe');
      assert.match(viaStripe!.data.payment.processor_reference, /^pi_/);
      assert.equal(viaSandbox!.data.payment.processor, 'sandbox');
      assert.equal(viaStripe!.data.payment.amount, viaSandbox!.data.payment.amount);
    } finally {
      await stripeApp.close();
      await sandboxApp.close();
      await receiver.close();
    }
  });
});
