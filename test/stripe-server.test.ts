/**
 * The local Stripe stand-in (test/stripe-server.ts), driven through the official `stripe` package: what the
 * Stripe processor's tests will rely on behaves as Stripe documents it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { StripeStandIn } from './stripe-server.ts';

let stand: StripeStandIn;
let stripe: Stripe;

before(async () => {
  stand = await StripeStandIn.start();
  stripe = stand.client();
});
after(() => stand.close());

async function cardError(promise: Promise<unknown>): Promise<Stripe.errors.StripeCardError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Stripe.errors.StripeCardError, String(error));
    return error;
  }
  assert.fail('expected a card error');
}

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
      stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' }),
      /status of canceled/,
    );
  });

  it('pm_card_authenticationRequired: requires_action on session, authentication_required off session', async () => {
    const onSession = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'gbp',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
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
      }),
    );
    assert.equal(error.code, 'authentication_required');
  });

  it('the same Idempotency-Key replays the first answer; other parameters with it are refused', async () => {
    const params = { amount: 700, currency: 'gbp', payment_method: 'pm_card_visa', confirm: true };
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
