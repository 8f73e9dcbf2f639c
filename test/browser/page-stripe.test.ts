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
  focused,
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
} from '../support/browser.ts';
import { STRIPE_WEBHOOK_PATH, STRIPE_WEBHOOK_SECRET, stripeConfig } from '../support/stripe-app.ts';
import { StripeStandIn } from '../support/stripe-server.ts';

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
    assert.match(await frame.locator('.summary').innerText(), /Visa •••• 4242/);
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
    // The alert takes the focus in an effect: typing before it moves could lose the text.
    await focused(frame.getByRole('alert').filter({ hasText: 'Your card was declined.' }));
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

  it('a wallet’s Elements group is a card one (Stripe has no apple_pay or google_pay type): from Apple Pay to Google Pay, its button pays', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant);
    const walletButton = (name: string) =>
      frame
        .frameLocator('iframe[title="Secure express checkout frame"]')
        .getByRole('button', { name: `Pay with ${name}` });
    await frame.getByRole('radio', { name: 'Apple Pay' }).check();
    await walletButton('Apple Pay').waitFor();
    await frame.getByRole('radio', { name: 'Google Pay' }).check();
    await walletButton('Google Pay').click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.match(await frame.locator('.summary').innerText(), /Google Pay/);
    const [row] = await env.t.db.query<{ method: string; status: string }>(
      'SELECT method, status FROM payments WHERE session_id = $1',
      [tenant.sessionId],
    );
    assert.deepEqual({ ...row }, { method: 'google_pay', status: 'succeeded' });
  });

  it('a wallet is offered only where Stripe.js says the device has it', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant, {
      initScript: "window.standinDeviceWallets = ['google_pay'];",
    });
    await frame.getByRole('radio', { name: 'Google Pay' }).waitFor();
    assert.equal(await frame.getByRole('radio', { name: 'Apple Pay' }).count(), 0);
    assert.deepEqual(
      await frame
        .getByRole('group', { name: 'Payment method' })
        .getByRole('radio')
        .evaluateAll((radios) => radios.map((r) => r.getAttribute('aria-label'))),
      ['Google Pay', 'Card', 'Alipay', 'WeChat Pay', 'UnionPay'],
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
    assert.match(await frame.locator('.summary').innerText(), /Visa •••• 3155/);
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

  it('"Save this card" ticked then unticked: the card pays without being saved (its token has no setup_future_usage)', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await hostedPage(tenant);
    await typeCard(frame, '4242424242424242');
    const save = frame.getByLabel('Save this card for future payments');
    await save.check();
    await save.uncheck();
    const posted = page.waitForRequest(
      (request) => request.method() === 'POST' && request.url() === `${stand.url}/v1/confirmation_tokens`,
    );
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    const request = await posted;
    const form = new URLSearchParams(request.postData() ?? '');
    assert.equal(form.get('mode'), 'payment');
    assert.equal(form.has('setup_future_usage'), false, 'Stripe.js was told the card is not for later');
    const response = await request.response();
    assert.ok(response, 'the stand-in answered');
    const tokenId = ((await response.json()) as { id: string }).id;
    const token = stand.confirmationTokens.get(tokenId) as { setup_future_usage?: string | null } | undefined;
    assert.ok(token, 'the stand-in recorded the token');
    assert.equal(token.setup_future_usage ?? null, null);
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual(
      (await chargesOf(env, tenant.sessionId)).map((charge) => charge.status),
      ['succeeded'],
    );
    const saved = await env.t.db.query(
      'SELECT 1 FROM saved_cards c JOIN sessions s ON s.user_id = c.user_id WHERE s.id = $1',
      [tenant.sessionId],
    );
    assert.equal(saved.length, 0, 'no card saved');
  });

  it('3DS that Stripe.js gives up on (handleNextAction answers an error): the page says so at once and Pay works again', async () => {
    const tenant = await newTenant(env);
    // Stripe.js's answer for a closed 3DS frame or a lost connection: an error, the PaymentIntent still waiting.
    const { frame } = await hostedPage(tenant, {
      initScript: `window.standinNextActionError = {
        type: 'invalid_request_error',
        code: 'payment_intent_authentication_failure',
        message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      };`,
    });
    await typeCard(frame, '4000002760003184');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    const alert = frame
      .getByRole('alert')
      .filter({ hasText: 'We are unable to authenticate your payment method.' });
    await focused(alert);
    assert.match(await alert.innerText(), /You have not been charged\./);
    await frame.locator('button.pay:enabled', { hasText: CARD_TOTAL }).waitFor();
    assert.equal(await frame.getByRole('dialog', { name: 'Authentication' }).count(), 0);
    // The payment was withdrawn, at Stripe too, so the session can pay again.
    const [first] = await env.t.db.query<{ status: string }>(
      'SELECT status FROM payments WHERE session_id = $1',
      [tenant.sessionId],
    );
    assert.equal(first?.status, 'canceled');
    const intents = () =>
      [...stand.paymentIntents.values()].filter(
        (candidate) => (candidate.metadata as Record<string, string>)?.session_id === tenant.sessionId,
      );
    assert.deepEqual(
      intents().map((intent) => intent.status),
      ['canceled'],
    );
    await typeCard(frame, '4242424242424242');
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual((await chargesOf(env, tenant.sessionId)).map((charge) => charge.status).sort(), [
      'canceled',
      'succeeded',
    ]);
  });

  it('saving a card whose 3DS Stripe.js gives up on: the page says the card was not saved, and Pay works again', async () => {
    const tenant = await newTenant(env);
    const { frame } = await hostedPage(tenant, {
      initScript: `window.standinNextActionError = {
        type: 'invalid_request_error',
        code: 'setup_intent_authentication_failure',
        message: 'We are unable to authenticate your payment method.',
      };`,
    });
    await typeCard(frame, '4000002500003155');
    await frame.getByLabel('Save this card for future payments').check();
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    const alert = frame
      .getByRole('alert')
      .filter({ hasText: 'We are unable to authenticate your payment method.' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /not saved/);
    await frame.locator('button.pay:enabled', { hasText: CARD_TOTAL }).waitFor();
    assert.deepEqual(await chargesOf(env, tenant.sessionId), []);
    await frame.getByLabel('Save this card for future payments').uncheck();
    await frame.getByRole('button', { name: CARD_TOTAL }).click();
    await authenticate(frame, 'Complete');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
  });

  it('Alipay with the popup blocked: a link opens Alipay in a tab of its own (never in a frame of ours); the page shows the outcome', async () => {
    const tenant = await newTenant(env);
    // A browser that blocks the popup: window.open answers null.
    const { page, frame } = await hostedPage(tenant, { initScript: 'window.open = () => null;' });
    const framed: string[] = [];
    page.on('framenavigated', (navigated) => framed.push(navigated.url()));
    await frame.getByRole('radio', { name: 'Alipay' }).check();
    await paymentElement(frame).getByText('Alipay opens in a new window').waitFor();
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByRole('button', { name: 'Continue to Alipay' }).click();
    const link = frame.getByRole('link', { name: 'Open Alipay to pay' });
    await link.waitFor();
    const intent = [...stand.paymentIntents.values()].find(
      (candidate) => (candidate.metadata as Record<string, string>)?.session_id === tenant.sessionId,
    );
    const alipayUrl = (intent?.next_action as { alipay_handle_redirect?: { url: string } } | null)
      ?.alipay_handle_redirect?.url;
    assert.ok(alipayUrl, 'the PaymentIntent waits for Alipay');
    assert.equal(await link.getAttribute('href'), alipayUrl);
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match((await link.getAttribute('rel')) ?? '', /\bnoopener\b/);
    const providerOrigin = new URL(alipayUrl).origin;
    assert.equal(
      await frame
        .locator('iframe')
        .evaluateAll(
          (frames, origin) => frames.filter((f) => (f as HTMLIFrameElement).src.startsWith(origin)).length,
          `${providerOrigin}/_standin/action/`,
        ),
      0,
      'no frame of Alipay’s page',
    );
    const [alipay] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await alipay.getByRole('button', { name: 'Complete' }).click();
    await alipay.waitForURL((url) => url.href.startsWith(`${env.baseUrl}/third-party/return?`));
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual(
      framed.filter((url) => url.startsWith(`${providerOrigin}/_standin/action/`)),
      [],
      'Alipay’s page never loaded in the payment page',
    );
    assert.deepEqual(await chargesOf(env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '120000', amount_pence: '120000' },
    ]);
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
