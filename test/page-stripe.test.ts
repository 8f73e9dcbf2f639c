/**
 * The hosted page in Stripe mode, in real Chromium inside the integrator's page: the Payment Element (the local
 * Stripe.js stand-in's frame) collects the method, our server confirms the PaymentIntent, Stripe.js completes
 * 3DS and WeChat Pay, Alipay opens in a window that returns to /third-party/return. Stripe's events reach the
 * webhook endpoint as Stripe would send them. Card numbers never reach our page's script nor our database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  allRowsText,
  chargesOf,
  newTenant,
  openInIntegratorPage,
  openSdkCheckout,
  type PageEnvironment,
  pageUrl,
  screenshot,
  sdkEvents,
  sdkInit,
  sdkPay,
  startPageEnvironment,
  type Tenant,
  UI_TIMEOUT_MS,
} from './browser.ts';
import { STRIPE_WEBHOOK_PATH, STRIPE_WEBHOOK_SECRET, stripeConfig } from './stripe-app.ts';
import { StripeStandIn } from './stripe-server.ts';

// £1,200.00 rent: card 1.45 % → £1,217.40; UnionPay 2 % → £1,224.00; Apple Pay 1 % → £1,212.00; Alipay, WeChat Pay free.
const FEES = {
  card: { percent: '1.45', fixed: '0.00' },
  unionpay: { percent: '2.00', fixed: '0.00' },
  apple_pay: { percent: '1.00', fixed: '0.00' },
};
const CARD_TOTAL = 'Pay £1,217.40';

let stand: StripeStandIn;
let env: PageEnvironment;
const contexts: { close(): Promise<void> }[] = [];

before(async () => {
  stand = await StripeStandIn.start();
  env = await startPageEnvironment({ fees: FEES }, { config: stripeConfig(stand) });
  stand.webhook = { url: `${env.baseUrl}${STRIPE_WEBHOOK_PATH}`, secret: STRIPE_WEBHOOK_SECRET };
});

after(async () => {
  for (const context of contexts) await context.close();
  await env.close();
  await stand.close();
});

async function hostedPage(
  tenant: Pick<Tenant, 'token' | 'sessionId'>,
  options: Parameters<typeof openInIntegratorPage>[2] = {},
): Promise<{ page: Page; frame: FrameLocator }> {
  const opened = await openInIntegratorPage(env, tenant, options);
  contexts.push(opened.context);
  return opened;
}

/** The Payment Element's card field: in the stand-in's frame, another origin than our page's. */
function paymentElement(frame: FrameLocator): FrameLocator {
  return frame.frameLocator('iframe[title="Secure payment input frame"]');
}

async function typeCard(frame: FrameLocator, number: string): Promise<void> {
  await paymentElement(frame).getByLabel('Card number').fill(number);
}

/** Stripe.js's authentication dialog (the stand-in issuer's page): Complete or Fail. */
async function authenticate(frame: FrameLocator, answer: 'Complete' | 'Fail'): Promise<void> {
  await frame
    .frameLocator('iframe[title="Stripe authentication"]')
    .getByRole('button', { name: answer })
    .click();
}

describe('hosted page with Stripe', () => {
  it('a new card: the Payment Element collects it, the total charged is the total shown', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await hostedPage(tenant);
    await typeCard(frame, '4242424242424242');
    assert.equal(await frame.getByLabel('Card number').count(), 0, 'no card field of ours');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.match(await frame.locator('.summary').innerText(), /Card •••• 4242/);
    await screenshot(page, 'stripe-card-success');
    assert.deepEqual(await chargesOf(env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '120000', amount_pence: '121740' },
    ]);
    const intent = [...stand.paymentIntents.values()].find(
      (candidate) => (candidate.metadata as Record<string, string>)?.session_id === tenant.sessionId,
    );
    assert.equal(intent?.amount, 121740);
    assert.equal(intent?.status, 'succeeded');
    assert.doesNotMatch(await allRowsText(env.t), /4242424242424242/);
  });

  it('Stripe.js that fails to load: the page says so and loads it again on "try again"', async () => {
    const tenant = await newTenant(env);
    const context = await env.browser.newContext({ viewport: { width: 480, height: 820 } });
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    contexts.push(context);
    // Stripe.js fails to load (a network error) until the tenant asks again. Every load fails until then: the
    // page's wallet probe and its payment fields share one loader, and whichever asks first must not decide
    // whether the failure is seen.
    let failing = true;
    let blocked = 0;
    let loaded = 0;
    await context.route('**/js/v3/', async (route) => {
      if (failing) {
        blocked += 1;
        return route.abort('failed');
      }
      loaded += 1;
      return route.continue();
    });
    const page = await context.newPage();
    await page.goto(`${env.integratorOrigin}/embed?src=${encodeURIComponent(pageUrl(env, tenant))}`);
    const frame = page.frameLocator('#rentpay');
    const alert = frame
      .getByRole('alert')
      .filter({ hasText: 'The secure payment fields could not be loaded' });
    await alert.waitFor();
    assert.equal(loaded, 0, 'nothing loaded while failing');
    failing = false;
    await frame.getByRole('button', { name: 'try again' }).click();
    await typeCard(frame, '4242424242424242');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.ok(blocked >= 1, 'the failed load was requested');
    assert.equal(loaded, 1, 'loaded again, once, after the failure');
  });

  it('a declined card says why; the next card pays (on a new PaymentIntent)', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant);
    await typeCard(frame, '4000000000000002');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await frame.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
    await typeCard(frame, '4242424242424242');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    const charges = await chargesOf(env, tenant.sessionId);
    assert.deepEqual(
      charges.map((charge) => charge.status),
      ['failed', 'succeeded'],
    );
    const intents = [...stand.paymentIntents.values()].filter(
      (candidate) => (candidate.metadata as Record<string, string>)?.session_id === tenant.sessionId,
    );
    assert.deepEqual(intents.map((intent) => intent.status).sort(), ['canceled', 'succeeded']);
  });

  it('3DS: Stripe.js shows the check in the page; completed, it pays; failed, nothing is charged', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await hostedPage(tenant);
    await typeCard(frame, '4000002760003184');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await authenticate(frame, 'Fail');
    await frame.getByRole('alert').waitFor();
    assert.deepEqual(
      (await chargesOf(env, tenant.sessionId)).map((charge) => charge.status),
      ['failed'],
    );
    await typeCard(frame, '4000002760003184');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await authenticate(frame, 'Complete');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await screenshot(page, 'stripe-3ds-success');
    assert.deepEqual(
      (await chargesOf(env, tenant.sessionId)).map((charge) => charge.status),
      ['failed', 'succeeded'],
    );
  });

  it('Alipay: a window opens at Alipay (the stand-in) and returns to /third-party/return; the frame shows the outcome', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await hostedPage(tenant);
    await frame.getByRole('radio', { name: 'Alipay' }).check();
    await paymentElement(frame).getByText('Alipay opens in a new window').waitFor();
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      frame.getByRole('button', { name: 'Continue to Alipay' }).click(),
    ]);
    const returned = page
      .context()
      .waitForEvent('request', (request) => request.url().startsWith(`${env.baseUrl}/third-party/return?`));
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Complete' }).click();
    const back = new URL((await returned).url());
    assert.equal(back.searchParams.get('redirect_status'), 'succeeded');
    await closed;
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual(await chargesOf(env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '120000', amount_pence: '120000' },
    ]);
  });

  it('WeChat Pay: Stripe.js shows the QR step; once paid, the page says so', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant);
    await frame.getByRole('radio', { name: 'WeChat Pay' }).check();
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await authenticate(frame, 'Complete');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.match(await frame.locator('.summary').innerText(), /WeChat Pay/);
  });

  it('Apple Pay: Stripe’s wallet button (no Pay button of ours) pays the wallet’s total as apple_pay', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await hostedPage(tenant);
    await frame.getByRole('radio', { name: 'Apple Pay' }).check();
    assert.equal(await frame.getByRole('button', { name: /^Pay £/ }).count(), 0);
    await frame.getByText('£1,212.00').first().waitFor();
    await frame
      .frameLocator('iframe[title="Secure express checkout frame"]')
      .getByRole('button', { name: 'Pay with Apple Pay' })
      .click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await screenshot(page, 'stripe-apple-pay-success');
    assert.match(await frame.locator('.summary').innerText(), /Apple Pay/);
    const [row] = await env.t.db.query<{ method: string; amount_pence: string }>(
      'SELECT method, amount_pence::text FROM payments WHERE session_id = $1',
      [tenant.sessionId],
    );
    assert.deepEqual({ ...row }, { method: 'apple_pay', amount_pence: '121200' });
  });

  it('a wallet is offered only where Stripe.js says the device has it', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant, {
      initScript: "window.standinDeviceWallets = ['google_pay'];",
    });
    await frame.getByRole('radio', { name: 'Google Pay' }).waitFor();
    assert.equal(await frame.getByRole('radio', { name: 'Apple Pay' }).count(), 0);
    assert.deepEqual(
      await frame.getByRole('radio').evaluateAll((radios) => radios.map((r) => r.getAttribute('aria-label'))),
      ['Card', 'Google Pay', 'Alipay', 'WeChat Pay', 'UnionPay'],
    );
  });

  it('a UnionPay card typed under Card: the page shows its own fee and total first, then pays as UnionPay', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant);
    await typeCard(frame, '6200000000000005');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    const notice = frame.getByRole('alert').filter({ hasText: 'UnionPay card' });
    await notice.waitFor();
    assert.equal(
      await notice.innerText(),
      'This is a UnionPay card, so the fee is £24.00 and the total £1,224.00. You have not been charged. Check the new total and pay again.',
    );
    assert.equal(await frame.getByRole('radio', { name: 'UnionPay' }).isChecked(), true);
    assert.deepEqual(await chargesOf(env, tenant.sessionId), []);
    await frame.getByRole('button', { name: 'Pay £1,224.00' }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual(await chargesOf(env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '120000', amount_pence: '122400' },
    ]);
  });

  it('save a card that asks for 3DS on set-up, pay with it, and pay with it again in a new session', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant);
    await typeCard(frame, '4000002500003155');
    await frame.getByLabel('Save this card for future payments').check();
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await authenticate(frame, 'Complete');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.match(await frame.locator('.summary').innerText(), /Card •••• 3155/);
    const customers = await env.t.db.query<{ customer_id: string }>(
      'SELECT customer_id FROM processor_customers',
    );
    assert.ok(customers.length > 0, 'a Stripe Customer for the tenant');

    // A new session of the same tenant: the saved card is offered and pays without the card being typed again.
    const again = await env.api.login({ email: tenant.email });
    const second = await hostedPage({ token: again.body.token, sessionId: again.body.session_id });
    await second.frame.getByRole('radio', { name: /ending 3155/ }).waitFor();
    assert.equal(await second.frame.locator('iframe[title="Secure payment input frame"]').count(), 0);
    await second.frame.getByRole('button', { name: CARD_TOTAL }).click();
    await second.frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual(
      (await chargesOf(env, again.body.session_id)).map((charge) => charge.status),
      ['succeeded'],
    );
  });

  it('the SDK on the integrator’s page: pay() with the Payment Element and 3DS resolves with the payment', async () => {
    const tenant = await newTenant(env);
    const { context, page } = await openSdkCheckout(env);
    contexts.push(context);
    assert.deepEqual(await sdkInit(env, page, tenant), { ok: true });
    const frame = page.frameLocator('#pay iframe');
    await typeCard(frame, '4000002760003184');
    const paying = sdkPay(page);
    await authenticate(frame, 'Complete');
    const result = await paying;
    assert.equal(result.ok, true, JSON.stringify(result.value));
    assert.equal(result.value.status, 'succeeded');
    assert.equal(result.value.amount, '1217.40');
    assert.deepEqual(
      (await sdkEvents(page)).map((event) => event.type),
      ['onSuccess'],
    );
    // The integrator's page can't read the card: it is in Stripe's frame inside ours.
    const readable = await page.evaluate(() => document.body.innerText);
    assert.doesNotMatch(readable, /4000002760003184/);
  });
});
