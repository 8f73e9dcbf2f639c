/**
 * The Stripe processor against a stand-in as strict as Stripe (test/support/stripe-server.ts): what an audit against
 * Stripe's own types and documents found the kinder stand-in let through. Each test failed before its fix.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newTenant, paymentEvents, type Tenant } from '../../support/payment-client.ts';
import {
  confirmationToken,
  deliverStripeEvents,
  intentAt,
  type StripeApp,
  saveStripeCard,
  startStripeApp,
} from '../../support/stripe-app.ts';

let s: StripeApp;
before(async () => {
  s = await startStripeApp();
});
after(() => s.close());

const intentOf = (id: string) => intentAt(s.stand, id);

describe('Stripe processor: what Stripe requires and refuses', () => {
  it('WeChat Pay sends payment_method_options[wechat_pay][client]=web, so Stripe shows its QR code', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      method: 'wechat_pay',
      confirmation_token: confirmationToken(s.stand, 'wechat_pay'),
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.status, 'requires_action', JSON.stringify(started.body));
    assert.equal(started.body.next_action.type, 'stripe_next_action');
    const intent = intentOf(started.body.processor_reference);
    assert.deepEqual(intent.payment_method_options, { wechat_pay: { client: 'web' } });
    assert.equal((intent.next_action as { type: string }).type, 'wechat_pay_display_qr_code');
    s.stand.completeAction(intent.id, true);
    await deliverStripeEvents(s.t, s.stand);
    assert.equal((await tenant.client.payment(started.body.payment_id)).body.status, 'succeeded');
  });

  it('a payment Stripe refuses with a 400 (no PaymentIntent) fails at once, is logged with Stripe’s request id, and the tenant may pay again', async () => {
    const tenant = await newTenant(s.t, s.api);
    // A token made while "save this card" was ticked: Stripe refuses it for an intent that saves nothing.
    const token = String(s.stand.createConfirmationToken('pm_card_visa', undefined, 'off_session').id);
    const intents = s.stand.paymentIntents.size;
    const refused = await tenant.client.pay({ confirmation_token: token });
    assert.equal(refused.status, 201, JSON.stringify(refused.body));
    assert.equal(refused.body.status, 'failed');
    assert.equal(refused.body.failure_code, 'processor_error');
    assert.match(refused.body.failure_message, /You have not been charged/);
    assert.equal(refused.body.processor_reference, null);
    assert.equal(s.stand.paymentIntents.size, intents, 'Stripe made no PaymentIntent');
    assert.deepEqual(await paymentEvents(s.t, refused.body.payment_id), ['payment_failed']);
    const logged = s.t.logs.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.idempotency_key === refused.body.payment_id);
    assert.ok(logged, 'the refusal is logged');
    assert.match(String(logged.stripe_request_id), /^req_/);
    assert.equal(logged.stripe_param, 'setup_future_usage');
    // Nothing is left in flight: the reconciliation job changes nothing, and another attempt is not a 409.
    s.t.clock.advance(60_000);
    await deliverStripeEvents(s.t, s.stand);
    assert.equal((await tenant.client.payment(refused.body.payment_id)).body.status, 'failed');
    const again = await tenant.client.pay({ confirmation_token: confirmationToken(s.stand, 'pm_card_visa') });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.body.status, 'succeeded');
  });

  it('a saved card’s 3DS is shown by Stripe.js in the page (use_stripe_sdk), not as a redirect', async () => {
    const tenant = await newTenant(s.t, s.api);
    const cardId = await saveStripeCard(s, tenant, 'pm_card_authenticationRequired');
    const started = await tenant.client.pay({ saved_card_id: cardId });
    assert.equal(started.body.status, 'requires_action', JSON.stringify(started.body));
    const intent = intentOf(started.body.processor_reference);
    assert.equal((intent.next_action as { type: string }).type, 'use_stripe_sdk');
    assert.deepEqual(started.body.next_action, {
      type: 'stripe_next_action',
      client_secret: intent.client_secret,
    });
  });

  it('3DS failed in Stripe.js, then the tenant cancels before Stripe’s event: the payment fails with the reason', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_authenticationRequired'),
    });
    assert.equal(started.body.status, 'requires_action');
    s.stand.completeAction(started.body.processor_reference, false);
    const canceled = await tenant.client.call('POST', `/payments/${started.body.payment_id}/cancel`);
    assert.equal(canceled.body.status, 'failed', JSON.stringify(canceled.body));
    assert.equal(canceled.body.failure_code, 'authentication_failed');
    assert.equal(intentOf(started.body.processor_reference).status, 'canceled', 'its client secret is spent');
    await deliverStripeEvents(s.t, s.stand);
    assert.deepEqual(await paymentEvents(s.t, started.body.payment_id), ['payment_failed']);
  });

  it('Stripe’s answer is lost before its PaymentIntent id is stored: its event finds the payment by metadata', async () => {
    const tenant = await newTenant(s.t, s.api);
    // Every answer to creating the PaymentIntent is lost (the SDK's own retries too), after Stripe executed it.
    s.stand.losePath = '/v1/payment_intents';
    s.stand.loseAnswers = 3;
    let started: Awaited<ReturnType<Tenant['client']['pay']>>;
    try {
      started = await tenant.client.pay({ confirmation_token: confirmationToken(s.stand, 'pm_card_visa') });
    } finally {
      s.stand.loseAnswers = 0;
      s.stand.losePath = '/v1/';
    }
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.status, 'processing');
    assert.equal(started.body.processor_reference, null);
    const charged = [...s.stand.paymentIntents.values()].filter(
      (intent) => (intent.metadata as Record<string, string>).payment_id === started.body.payment_id,
    );
    assert.equal(charged.length, 1, 'Stripe charged it once');
    await deliverStripeEvents(s.t, s.stand);
    const done = await tenant.client.payment(started.body.payment_id);
    assert.equal(done.body.status, 'succeeded');
    assert.equal(done.body.processor_reference, charged[0]!.id);
    assert.deepEqual(await paymentEvents(s.t, started.body.payment_id), ['payment_success']);
  });

  it('pages polling a waiting payment read Stripe at most once per payment every 5 s; a 429 from Stripe answers as stored', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_authenticationRequired'),
    });
    assert.equal(started.body.status, 'requires_action');
    const intentPath = `/v1/payment_intents/${started.body.processor_reference}`;
    const reads = () => s.stand.requests.filter((r) => r.method === 'GET' && r.path === intentPath).length;
    const before = reads();
    // Two tabs polling every 750 ms for 7.5 s of the fake clock: 20 polls, two reads.
    for (let i = 0; i < 10; i++) {
      const polls = await Promise.all([1, 2].map(() => tenant.client.payment(started.body.payment_id)));
      for (const poll of polls) assert.equal(poll.body.status, 'requires_action');
      s.t.clock.advance(750);
    }
    assert.equal(reads() - before, 2);

    // Stripe says 429 (rate_limit): the poll answers what is stored, and the next read is due 5 s later.
    s.stand.completeAction(started.body.processor_reference, true);
    s.stand.rateLimitPerSecond = 0;
    try {
      s.t.clock.advance(5_000);
      const limited = await tenant.client.payment(started.body.payment_id);
      assert.equal(limited.status, 200, JSON.stringify(limited.body));
      assert.equal(limited.body.status, 'requires_action');
    } finally {
      s.stand.rateLimitPerSecond = 25;
    }
    s.t.clock.advance(5_000);
    assert.equal((await tenant.client.payment(started.body.payment_id)).body.status, 'succeeded');
  });

  it('Stripe’s events newest first and each twice: the same outcome, recorded once', async () => {
    const tenant = await newTenant(s.t, s.api);
    const started = await tenant.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_authenticationRequired'),
    });
    s.stand.completeAction(started.body.processor_reference, true);
    // payment_intent.succeeded arrives first, then the older events about the same intent, and all again.
    await deliverStripeEvents(s.t, s.stand, { reversed: true, twice: true });
    const done = await tenant.client.payment(started.body.payment_id);
    assert.equal(done.body.status, 'succeeded');
    assert.deepEqual(await paymentEvents(s.t, started.body.payment_id), ['payment_success']);

    const payer = await newTenant(s.t, s.api);
    const refunded = await payer.client.pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
    });
    s.stand.refundsPending = true;
    const refund = await s.t.app.inject({
      method: 'POST',
      url: `/api/third-party/payments/${refunded.body.payment_id}/refunds/`,
      headers: { authorization: `Token ${s.api.serverToken}` },
      payload: { amount: '100.00' },
    });
    s.stand.refundsPending = false;
    assert.equal(refund.json().status, 'pending');
    const stripeRefund = [...s.stand.refunds.values()].find(
      (r) => (r.metadata as Record<string, string>).refund_id === refund.json().refund_id,
    )!;
    s.stand.settleRefund(stripeRefund.id, 'succeeded');
    await deliverStripeEvents(s.t, s.stand, { reversed: true, twice: true });
    // One of each (at one instant of the fake clock, so in no particular order).
    assert.deepEqual((await paymentEvents(s.t, refunded.body.payment_id)).sort(), [
      'payment_refunded',
      'payment_success',
    ]);
  });
});
