/**
 * The local Stripe stand-in (test/support/stripe-server.ts), driven through the official `stripe` package: what the
 * Stripe processor's tests will rely on behaves as Stripe documents it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { StripeStandIn } from '../support/stripe-server.ts';

let stand: StripeStandIn;
let stripe: Stripe;

before(async () => {
  stand = await StripeStandIn.start();
  stripe = stand.client();
  // These tests call as fast as a loop can; the one about the rate limit sets its own clock and limit.
  stand.rateLimitPerSecond = Number.POSITIVE_INFINITY;
});
after(() => stand.close());

/** Where a customer comes back after a redirect: Stripe requires one while an intent may use redirect methods. */
const RETURN = { return_url: 'https://platform.example/back' };
/** An intent that takes no redirect methods (a recurring charge), so it needs no return_url. */
const NO_REDIRECTS = { automatic_payment_methods: { enabled: true, allow_redirects: 'never' as const } };

/** The error a Stripe call is refused with: a card error (402), or with `Kind`, any other. */
async function refusedWith<E extends Stripe.errors.StripeError>(
  promise: Promise<unknown>,
  Kind: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Kind, String(error));
    return error;
  }
  assert.fail('expected Stripe to refuse the request');
}
const cardError = (promise: Promise<unknown>) => refusedWith(promise, Stripe.errors.StripeCardError);
const refusal = (promise: Promise<unknown>) => refusedWith(promise, Stripe.errors.StripeError);

describe('Stripe stand-in through the official SDK', () => {
  it('a Customer and a PaymentIntent confirmed with pm_card_visa succeed, with metadata kept', async () => {
    const customer = await stripe.customers.create({ email: 'tenant@example.com' });
    assert.match(customer.id, /^cus_/);
    const intent = await stripe.paymentIntents.create({
      amount: 121740,
      currency: 'gbp',
      customer: customer.id,
      payment_method: 'pm_card_visa',
      confirm: true,
      ...RETURN,
      metadata: { payment_id: 'pay_1', session_id: 'ses_1' },
    });
    assert.equal(intent.status, 'succeeded');
    assert.equal(intent.amount_received, 121740);
    assert.deepEqual(intent.metadata, { payment_id: 'pay_1', session_id: 'ses_1' });
    assert.match(intent.client_secret ?? '', new RegExp(`^${intent.id}_secret_`));
    assert.equal((await stripe.paymentIntents.retrieve(intent.id)).status, 'succeeded');
  });

  it('a ConfirmationToken previews the card and confirms the PaymentIntent', async () => {
    const token = (await stripe.rawRequest('POST', '/v1/test_helpers/confirmation_tokens', {
      payment_method: 'pm_card_mastercard',
    })) as unknown as { id: string };
    const retrieved = await stripe.confirmationTokens.retrieve(token.id);
    assert.equal(retrieved.payment_method_preview?.card?.brand, 'mastercard');
    assert.equal(retrieved.payment_method_preview?.card?.last4, '4444');
    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'gbp',
      confirm: true,
      confirmation_token: token.id,
      ...RETURN,
    });
    assert.equal(intent.status, 'succeeded');
  });

  it('a decline answers 402 card_error with the decline code; the intent waits for another method', async () => {
    const error = await cardError(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'gbp',
        payment_method: 'pm_card_chargeDeclinedInsufficientFunds',
        confirm: true,
        ...RETURN,
      }),
    );
    assert.equal(error.statusCode, 402);
    assert.equal(error.code, 'card_declined');
    assert.equal(error.decline_code, 'insufficient_funds');
    const intent = error.payment_intent!;
    assert.equal(intent.status, 'requires_payment_method');
    assert.equal(intent.last_payment_error?.decline_code, 'insufficient_funds');
    const canceled = await stripe.paymentIntents.cancel(intent.id);
    assert.equal(canceled.status, 'canceled');
    await assert.rejects(
      stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa', ...RETURN }),
      /status of canceled/,
    );
  });

  it('pm_card_authenticationRequired: requires_action on session, authentication_required off session', async () => {
    const onSession = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'gbp',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
      use_stripe_sdk: true,
      ...RETURN,
    });
    assert.equal(onSession.status, 'requires_action');
    assert.equal(onSession.next_action?.type, 'use_stripe_sdk');
    const error = await cardError(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'gbp',
        payment_method: 'pm_card_authenticationRequired',
        confirm: true,
        off_session: true,
        ...NO_REDIRECTS,
      }),
    );
    assert.equal(error.code, 'authentication_required');
  });

  it('the same Idempotency-Key replays the first answer; other parameters with it are refused', async () => {
    const params = { amount: 700, currency: 'gbp', payment_method: 'pm_card_visa', confirm: true, ...RETURN };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'pay_same' });
    const again = await stripe.paymentIntents.create(params, { idempotencyKey: 'pay_same' });
    assert.equal(again.id, first.id);
    assert.equal(
      [...stand.paymentIntents.values()].filter((pi) => pi.amount === 700).length,
      1,
      'charged once',
    );
    await assert.rejects(
      stripe.paymentIntents.create({ ...params, amount: 800 }, { idempotencyKey: 'pay_same' }),
      (error: unknown) => error instanceof Stripe.errors.StripeIdempotencyError,
    );
  });

  it('refunds in full and in part, never more than was charged', async () => {
    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'gbp',
      payment_method: 'pm_card_visa',
      confirm: true,
      ...RETURN,
    });
    const part = await stripe.refunds.create({ payment_intent: intent.id, amount: 400 });
    assert.deepEqual([part.status, part.amount], ['succeeded', 400]);
    const rest = await stripe.refunds.create({ payment_intent: intent.id });
    assert.equal(rest.amount, 600);
    await assert.rejects(
      stripe.refunds.create({ payment_intent: intent.id, amount: 1 }),
      /greater than unrefunded/,
    );
  });

  it('refuses a wrong key (401) and unknown objects (404 resource_missing)', async () => {
    await assert.rejects(
      new Stripe('not_a_key', { host: '127.0.0.1', port: stand.port, protocol: 'http' }).customers.create({}),
      (error: unknown) => error instanceof Stripe.errors.StripeAuthenticationError,
    );
    await assert.rejects(stripe.paymentIntents.retrieve('pi_missing'), (error: unknown) => {
      return error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing';
    });
  });

  it('signs events as Stripe does: the official verifier accepts them, and refuses a tampered body', () => {
    const secret = 'whsec_standin_secret';
    const { body, signature } = stand.signedEvent(
      'payment_intent.succeeded',
      { id: 'pi_1', object: 'payment_intent' },
      secret,
    );
    const event = stripe.webhooks.constructEvent(body, signature, secret);
    assert.equal(event.type, 'payment_intent.succeeded');
    assert.throws(() => stripe.webhooks.constructEvent(body.replace('pi_1', 'pi_2'), signature, secret));
  });
});

function newToken(paymentMethod: string, setupFutureUsage?: string): string {
  return String(stand.createConfirmationToken(paymentMethod, undefined, setupFutureUsage).id);
}

describe('Stripe stand-in refuses what Stripe refuses', () => {
  it('an unknown parameter, top-level or nested, is 400 parameter_unknown and creates nothing', async () => {
    const before = stand.paymentIntents.size;
    const top = await refusal(
      stripe.paymentIntents.create({ amount: 100, currency: 'gbp', colour: 'red' } as never),
    );
    assert.deepEqual([top.statusCode, top.code, top.param], [400, 'parameter_unknown', 'colour']);
    assert.match(top.message, /Received unknown parameter: colour/);
    const nested = await refusal(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'gbp',
        payment_method_options: { wechat_pay: { client: 'web', colour: 'red' } },
      } as never),
    );
    assert.equal(nested.param, 'payment_method_options[wechat_pay][colour]');
    const automatic = await refusal(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'gbp',
        automatic_payment_methods: { enabled: true, redirects: 'never' },
      } as never),
    );
    assert.equal(automatic.param, 'automatic_payment_methods[redirects]');
    await refusal(stripe.refunds.create({ payment_intent: 'pi_x', amount: 1, why: 'x' } as never));
    assert.equal(stand.paymentIntents.size, before);
  });

  it('WeChat Pay needs payment_method_options[wechat_pay][client]: without it 400 and no PaymentIntent', async () => {
    const before = stand.paymentIntents.size;
    const error = await refusal(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'gbp',
        confirm: true,
        confirmation_token: newToken('wechat_pay'),
        ...RETURN,
      }),
    );
    assert.deepEqual(
      [error.statusCode, error.code, error.param],
      [400, 'parameter_missing', 'payment_method_options[wechat_pay][client]'],
    );
    assert.equal(
      stand.paymentIntents.size,
      before,
      'Stripe creates no PaymentIntent for a refused validation',
    );
    const intent = await stripe.paymentIntents.create({
      amount: 100,
      currency: 'gbp',
      confirm: true,
      confirmation_token: newToken('wechat_pay'),
      payment_method_options: { wechat_pay: { client: 'web' } },
      ...RETURN,
    });
    assert.equal(intent.next_action?.type, 'wechat_pay_display_qr_code');
    const mobile = await refusal(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'gbp',
        confirm: true,
        confirmation_token: newToken('wechat_pay'),
        payment_method_options: { wechat_pay: { client: 'ios' } },
        ...RETURN,
      }),
    );
    assert.equal(mobile.param, 'payment_method_options[wechat_pay][app_id]');
  });

  it('a return_url is required while redirect methods are allowed (Stripe’s default), even for a card', async () => {
    const card = { amount: 100, currency: 'gbp', payment_method: 'pm_card_visa', confirm: true } as const;
    const error = await refusal(stripe.paymentIntents.create(card));
    assert.deepEqual([error.statusCode, error.param], [400, 'return_url']);
    assert.match(error.message, /allow_redirects/);
    assert.equal((await stripe.paymentIntents.create({ ...card, ...NO_REDIRECTS })).status, 'succeeded');
    const alipay = await refusal(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'gbp',
        confirm: true,
        confirmation_token: newToken('alipay'),
        ...NO_REDIRECTS,
      }),
    );
    assert.match(alipay.message, /requires a redirect/);
    const saved = await refusal(
      stripe.setupIntents.create({ confirm: true, confirmation_token: newToken('pm_card_visa') }),
    );
    assert.equal(saved.param, 'return_url');
  });

  it('3DS is handled by Stripe.js with use_stripe_sdk (a ConfirmationToken’s default), else it is a redirect', async () => {
    const base = { amount: 100, currency: 'gbp', confirm: true, ...RETURN } as const;
    const redirect = await stripe.paymentIntents.create({
      ...base,
      payment_method: 'pm_card_authenticationRequired',
    });
    assert.equal(redirect.next_action?.type, 'redirect_to_url');
    assert.equal(redirect.next_action?.redirect_to_url?.return_url, RETURN.return_url);
    const sdk = await stripe.paymentIntents.create({
      ...base,
      payment_method: 'pm_card_authenticationRequired',
      use_stripe_sdk: true,
    });
    assert.equal(sdk.next_action?.type, 'use_stripe_sdk');
    const token = await stripe.paymentIntents.create({
      ...base,
      confirmation_token: newToken('pm_card_authenticationRequired'),
    });
    assert.equal(token.next_action?.type, 'use_stripe_sdk');
  });

  it('a ConfirmationToken is single-use, expires, and must match the intent’s setup_future_usage', async () => {
    const base = { amount: 100, currency: 'gbp', confirm: true, ...RETURN } as const;
    const once = newToken('pm_card_visa');
    const paid = await stripe.paymentIntents.create({ ...base, confirmation_token: once });
    assert.equal(paid.status, 'succeeded');
    assert.equal(stand.confirmationTokens.get(once)?.payment_intent, paid.id);
    const reused = await refusal(stripe.paymentIntents.create({ ...base, confirmation_token: once }));
    assert.deepEqual([reused.statusCode, reused.param], [400, 'confirmation_token']);
    assert.match(reused.message, /already been used/);

    const saving = newToken('pm_card_visa', 'off_session');
    const mismatch = await refusal(stripe.paymentIntents.create({ ...base, confirmation_token: saving }));
    assert.equal(mismatch.param, 'setup_future_usage');
    const matched = await stripe.paymentIntents.create({
      ...base,
      confirmation_token: saving,
      setup_future_usage: 'off_session',
    });
    assert.equal(matched.status, 'succeeded');

    const stale = newToken('pm_card_visa');
    const clock = stand.now;
    stand.now = () => clock() + 12 * 3600 * 1000 + 1000;
    try {
      const expired = await refusal(stripe.paymentIntents.create({ ...base, confirmation_token: stale }));
      assert.match(expired.message, /expired/);
    } finally {
      stand.now = clock;
    }
  });

  it('canceling a PaymentIntent clears its last_payment_error, so the refusal must be read first', async () => {
    const error = await cardError(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'gbp',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
        ...RETURN,
      }),
    );
    const declined = error.payment_intent!;
    assert.equal(declined.last_payment_error?.code, 'card_declined');
    const canceled = await stripe.paymentIntents.cancel(declined.id);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.last_payment_error, null);
  });

  it('refunds may stay pending, then succeed or fail with refund.updated, refund.failed, charge.refund.updated', async () => {
    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'gbp',
      payment_method: 'pm_card_visa',
      confirm: true,
      ...RETURN,
    });
    stand.refundsPending = true;
    try {
      const pending = await stripe.refunds.create({ payment_intent: intent.id, amount: 400 });
      assert.equal(pending.status, 'pending');
      const charge = await stripe.charges.retrieve(String(intent.latest_charge));
      assert.equal(charge.amount_refunded, 400, 'a pending refund counts as refunded on the charge');
      const seen = stand.events.length;
      stand.settleRefund(pending.id, 'failed');
      assert.deepEqual(
        stand.events.slice(seen).map((event) => event.type),
        ['refund.failed', 'refund.updated', 'charge.refund.updated'],
      );
      assert.equal((await stripe.refunds.retrieve(pending.id)).failure_reason, 'expired_or_canceled_card');
      assert.equal((await stripe.charges.retrieve(String(intent.latest_charge))).amount_refunded, 0);
    } finally {
      stand.refundsPending = false;
    }
    const later = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 });
    assert.equal(later.status, 'succeeded', 'the failed refund’s amount can be refunded again');
    stand.settleRefund(later.id, 'failed');
    assert.equal((await stripe.refunds.retrieve(later.id)).status, 'failed');
  });

  it('more than 25 requests a second to one route are 429 rate_limit, and not kept for idempotent replay', async () => {
    const wall = stand.rateClock;
    stand.rateClock = () => 5_000_000;
    stand.rateLimitPerSecond = 25;
    try {
      for (let i = 0; i < 25; i++) await stripe.customers.create({});
      const limited = await refusal(stripe.customers.create({}, { idempotencyKey: 'cus_after_limit' }));
      assert.ok(limited instanceof Stripe.errors.StripeRateLimitError);
      assert.deepEqual([limited.statusCode, limited.code], [429, 'rate_limit']);
      // Another route has its own budget.
      await stripe.paymentIntents.create({ amount: 100, currency: 'gbp' });
      stand.rateClock = () => 5_001_000;
      const created = await stripe.customers.create({}, { idempotencyKey: 'cus_after_limit' });
      assert.match(created.id, /^cus_/);
    } finally {
      stand.rateClock = wall;
      stand.rateLimitPerSecond = Number.POSITIVE_INFINITY;
    }
  });

  it('an idempotent result is kept only once the request executed: a refused validation is not replayed', async () => {
    const key = `pay_${Math.random()}`;
    const invalid = await refusal(
      stripe.paymentIntents.create(
        { amount: 100, currency: 'gbp', confirm: true, payment_method: 'pm_card_visa' },
        {
          idempotencyKey: key,
        },
      ),
    );
    assert.equal(invalid.param, 'return_url');
    // Nothing was kept, so the same key with other (valid) parameters is a new request, not an idempotency error.
    const paid = await stripe.paymentIntents.create(
      { amount: 100, currency: 'gbp', confirm: true, payment_method: 'pm_card_visa', ...RETURN },
      { idempotencyKey: key },
    );
    assert.equal(paid.status, 'succeeded');
    // A card decline did execute: the same key replays it.
    const declineKey = `pay_${Math.random()}`;
    const params = {
      amount: 100,
      currency: 'gbp',
      confirm: true,
      payment_method: 'pm_card_chargeDeclined',
      ...RETURN,
    };
    const first = await cardError(stripe.paymentIntents.create(params, { idempotencyKey: declineKey }));
    const again = await cardError(stripe.paymentIntents.create(params, { idempotencyKey: declineKey }));
    assert.equal(again.payment_intent?.id, first.payment_intent?.id);
    assert.equal(again.headers?.['idempotent-replayed'], 'true');
  });

  it('a lost answer: the request executed, the connection dropped, and a retry with the key replays it', async () => {
    const key = `pay_${Math.random()}`;
    const params = {
      amount: 4321,
      currency: 'gbp',
      confirm: true,
      payment_method: 'pm_card_visa',
      ...RETURN,
    };
    // The SDK retries a closed connection once by itself, with the same key: lose both answers.
    stand.loseAnswers = 2;
    await assert.rejects(
      stripe.paymentIntents.create(params, { idempotencyKey: key }),
      (error: unknown) => error instanceof Stripe.errors.StripeConnectionError,
    );
    const kept = [...stand.paymentIntents.values()].filter((pi) => pi.amount === 4321);
    assert.equal(kept.length, 1, 'Stripe executed it');
    const retried = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    assert.equal(retried.id, kept[0]!.id);
    assert.equal(retried.lastResponse.headers['idempotent-replayed'], 'true');
  });
});
