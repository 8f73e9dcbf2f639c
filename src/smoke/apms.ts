/**
 * WeChat Pay and Alipay: a ConfirmationToken for the method (Stripe's test helper), a payment through the Client
 * API that waits for the tenant (`requires_action`, Stripe.js takes over with the client secret), the
 * PaymentIntent's next action at Stripe, then the payment canceled through the Client API. Nobody scans the QR
 * code or follows the redirect: that needs a person (or a browser) at WeChat's or Alipay's test page.
 */
import type Stripe from 'stripe';
import { fail, login, newKey, type Smoke, section, step } from './harness.ts';

interface Apm {
  method: 'wechat_pay' | 'alipay';
  name: string;
  nextAction: 'wechat_pay_display_qr_code' | 'alipay_handle_redirect';
}

const APMS: readonly Apm[] = [
  { method: 'wechat_pay', name: 'WeChat Pay', nextAction: 'wechat_pay_display_qr_code' },
  { method: 'alipay', name: 'Alipay', nextAction: 'alipay_handle_redirect' },
];

/** Both APMs, one after the other in one session of the user (as a tenant trying one, then the other). */
export async function apmPayments(smoke: Smoke, server: string, email: string): Promise<void> {
  section('APMs');
  const { sessionId, client } = await login(smoke, server, email);
  step(`session ${sessionId}`);
  for (const apm of APMS) await apmPayment(smoke, client, apm);
}

async function apmPayment(smoke: Smoke, client: string, apm: Apm): Promise<void> {
  section(apm.name);
  const token = await smoke.stripe.testHelpers.confirmationTokens.create({
    payment_method_data: { type: apm.method },
  });
  step(`confirmation token ${token.id}`);
  // No fee is set for APMs, so the tenant pays the rent alone.
  const payment = await smoke.call(
    'POST',
    '/api/client/payments',
    client,
    { method: apm.method, confirmation_token: token.id, pure_amount: '12.00', expected_amount: '12.00' },
    { 'idempotency-key': newKey() },
  );
  if (payment.status !== 201) fail(`paying with ${apm.method}: HTTP ${payment.status}`, payment.body);
  const { payment_id: paymentId, status, processor_reference: intentId, next_action: action } = payment.body;
  if (status !== 'requires_action') {
    fail(
      `the ${apm.method} payment is ${status}, not requires_action (is ${apm.name} turned on for GBP in the ` +
        'Stripe account’s payment methods, test mode? The warning logged above has Stripe’s words)',
      payment.body,
    );
  }
  if (action?.type !== 'stripe_next_action' || typeof action.client_secret !== 'string') {
    fail('the payment’s next_action is not {type: stripe_next_action, client_secret}', payment.body);
  }
  step(`payment ${paymentId}: requires_action, next_action stripe_next_action (${intentId})`);

  const intent = await smoke.stripe.paymentIntents.retrieve(intentId);
  if (intent.client_secret !== action.client_secret) {
    fail(`the next_action’s client_secret is not PaymentIntent ${intentId}’s`);
  }
  if (intent.status !== 'requires_action' || intent.next_action?.type !== apm.nextAction) {
    fail(
      `PaymentIntent ${intentId} is ${intent.status} with next_action ${intent.next_action?.type ?? 'none'}, not ` +
        `requires_action with ${apm.nextAction}`,
      intent.next_action,
    );
  }
  if (apm.method === 'alipay') checkReturnUrl(smoke, intent);
  step(`PaymentIntent ${intentId}: next_action ${intent.next_action.type}`);

  const canceled = await smoke.call('POST', `/api/client/payments/${paymentId}/cancel`, client);
  if (canceled.status !== 200 || canceled.body.status !== 'canceled') {
    fail(`canceling payment ${paymentId}: HTTP ${canceled.status}, not 200 canceled`, canceled.body);
  }
  const atStripe = await smoke.stripe.paymentIntents.retrieve(intentId);
  if (atStripe.status !== 'canceled') fail(`PaymentIntent ${intentId} is ${atStripe.status}, not canceled`);
  step(`payment ${paymentId} canceled (PaymentIntent canceled)`);
}

/** Alipay sends the tenant to Alipay and back to our return page, which hands the outcome to the frame. */
function checkReturnUrl(smoke: Smoke, intent: Stripe.PaymentIntent): void {
  const expected = `${smoke.app.ctx.config.publicUrl}/third-party/return`;
  const returnUrl = intent.next_action?.alipay_handle_redirect?.return_url;
  if (returnUrl !== expected) {
    fail(`Alipay’s return_url is ${returnUrl ?? 'missing'}, not ${expected}`, intent.next_action);
  }
}
