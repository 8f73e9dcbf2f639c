/**
 * The Stripe.js stand-in (test/support/stripe-js-standin.js) is as strict as Stripe.js where rentpay's page could go
 * wrong: an Elements group of payment method types Stripe does not have (wallets are cards there), a payment
 * without an amount, no currency, an unknown setupFutureUsage all throw an IntegrationError; update() merges;
 * createConfirmationToken sends what the group says now (mode, setup_future_usage); a test can make
 * handleNextAction answer an error while the intent still waits, as Stripe.js does for a closed 3DS frame. Run in
 * real Chromium on a blank page of another origin than the stand-in's, as the page loads Stripe.js.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { leaseBrowser, releaseBrowser, UI_TIMEOUT_MS } from '../support/browser.ts';
import { StripeStandIn } from '../support/stripe-server.ts';

const KEY = 'pk_test_rentpay_standin';

let stand: StripeStandIn;
let site: http.Server;
let siteUrl: string;
let browser: Browser;

before(async () => {
  stand = await StripeStandIn.start();
  // A blank page with the stand-in's Stripe.js, as the payment page loads it.
  site = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Blank</title><script src="${stand.url}/js/v3/"></script></head><body><div id="host"></div></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // "localhost" against the stand-in's 127.0.0.1: Stripe's frames are of another site than the page.
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
  browser = await leaseBrowser();
});

after(async () => {
  if (browser) await releaseBrowser(browser);
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  await stand?.close();
});

/** A blank page with the stand-in's Stripe.js, in a context of its own (close it with page.context().close()). */
async function blankPage(): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  const page = await context.newPage();
  await page.goto(siteUrl);
  await page.waitForFunction(() => typeof (window as { Stripe?: unknown }).Stripe === 'function');
  return page;
}

/** What `elements(options)` does on the page: ok, or the error it throws (name and message). */
async function elementsWith(
  page: Page,
  options: Record<string, unknown>,
): Promise<{ ok: true } | { ok: false; name: string; message: string }> {
  return page.evaluate(
    ([key, group]) => {
      const Stripe = (window as unknown as { Stripe(key: string): { elements(o: unknown): unknown } }).Stripe;
      try {
        Stripe(key).elements(group);
        return { ok: true as const };
      } catch (error) {
        return { ok: false as const, name: (error as Error).name, message: (error as Error).message };
      }
    },
    [KEY, options] as const,
  );
}

const PAYMENT = { mode: 'payment', currency: 'gbp', amount: 121740 };

// A bounded run: a stand-in that waits where it should answer fails its test instead of hanging the file.
const BOUNDED = { timeout: 3 * UI_TIMEOUT_MS };

describe('the Stripe.js stand-in is as strict as Stripe.js', () => {
  let page: Page;
  before(async () => {
    page = await blankPage();
  });
  after(async () => {
    await page.context().close();
  });

  it(
    'elements() with a payment method type Stripe does not have throws an IntegrationError',
    BOUNDED,
    async () => {
      const refused = await elementsWith(page, { ...PAYMENT, paymentMethodTypes: ['card', 'bitcoin_cash'] });
      assert.equal(refused.ok, false);
      assert.equal(!refused.ok && refused.name, 'IntegrationError');
      assert.match(!refused.ok ? refused.message : '', /paymentMethodTypes.*bitcoin_cash/);
      for (const types of [['card'], ['alipay'], ['wechat_pay'], ['card', 'link']]) {
        assert.deepEqual(await elementsWith(page, { ...PAYMENT, paymentMethodTypes: types }), { ok: true });
      }
      const notAList = await elementsWith(page, { ...PAYMENT, paymentMethodTypes: 'card' });
      assert.equal(!notAList.ok && notAList.name, 'IntegrationError');
    },
  );

  it(
    'wallets are not payment method types: apple_pay and google_pay throw (a wallet is a card at Stripe)',
    BOUNDED,
    async () => {
      for (const wallet of ['apple_pay', 'google_pay']) {
        const refused = await elementsWith(page, { ...PAYMENT, paymentMethodTypes: [wallet] });
        assert.equal(!refused.ok && refused.name, 'IntegrationError', wallet);
        assert.match(!refused.ok ? refused.message : '', new RegExp(wallet));
      }
    },
  );

  it('mode payment without a positive integer amount throws', BOUNDED, async () => {
    for (const amount of [undefined, 0, -100, 12.5, '100', null]) {
      const group: Record<string, unknown> = {
        mode: 'payment',
        currency: 'gbp',
        paymentMethodTypes: ['card'],
      };
      if (amount !== undefined) group.amount = amount;
      const refused = await elementsWith(page, group);
      assert.equal(!refused.ok && refused.name, 'IntegrationError', `amount ${String(amount)}`);
      assert.match(!refused.ok ? refused.message : '', /amount/);
    }
    // A card being set up for later has no amount.
    assert.deepEqual(
      await elementsWith(page, {
        mode: 'setup',
        currency: 'gbp',
        setupFutureUsage: 'off_session',
        paymentMethodTypes: ['card'],
      }),
      { ok: true },
    );
  });

  it('a missing currency throws', BOUNDED, async () => {
    const refused = await elementsWith(page, { mode: 'payment', amount: 100, paymentMethodTypes: ['card'] });
    assert.equal(!refused.ok && refused.name, 'IntegrationError');
    assert.match(!refused.ok ? refused.message : '', /currency/);
  });

  it('setupFutureUsage other than off_session, on_session or null throws', BOUNDED, async () => {
    for (const usage of ['offSession', 'always', true, '']) {
      const refused = await elementsWith(page, {
        ...PAYMENT,
        paymentMethodTypes: ['card'],
        setupFutureUsage: usage,
      });
      assert.equal(!refused.ok && refused.name, 'IntegrationError', `setupFutureUsage ${String(usage)}`);
      assert.match(!refused.ok ? refused.message : '', /setupFutureUsage/);
    }
    for (const usage of ['off_session', 'on_session', null]) {
      assert.deepEqual(
        await elementsWith(page, { ...PAYMENT, paymentMethodTypes: ['card'], setupFutureUsage: usage }),
        { ok: true },
        `setupFutureUsage ${String(usage)}`,
      );
    }
  });

  it(
    'update() merges like Stripe: setupFutureUsage stays until set to null; a merged group is checked too',
    BOUNDED,
    async () => {
      const seen = await page.evaluate(
        ([key, group]) => {
          type Group = { options: Record<string, unknown>; update(changes: Record<string, unknown>): void };
          const Stripe = (window as unknown as { Stripe(key: string): { elements(o: unknown): Group } })
            .Stripe;
          const elements = Stripe(key).elements({ ...group, paymentMethodTypes: ['card'] });
          elements.update({ mode: 'setup', setupFutureUsage: 'off_session' });
          const ticked = { ...elements.options };
          elements.update({ mode: 'payment', amount: 121740 });
          const unticked = { ...elements.options };
          elements.update({ setupFutureUsage: null });
          const reset = { ...elements.options };
          let refused = '';
          try {
            elements.update({ amount: 0 });
          } catch (error) {
            refused = (error as Error).name;
          }
          return { ticked, unticked, reset, refused, after: { ...elements.options } };
        },
        [KEY, PAYMENT] as const,
      );
      assert.equal(seen.ticked.mode, 'setup');
      assert.equal(seen.ticked.setupFutureUsage, 'off_session');
      assert.equal(seen.unticked.mode, 'payment');
      assert.equal(seen.unticked.setupFutureUsage, 'off_session', 'not set again, so kept: Stripe merges');
      assert.equal(seen.reset.setupFutureUsage, null);
      assert.equal(seen.reset.currency, 'gbp');
      assert.equal(seen.refused, 'IntegrationError', 'a payment group of amount 0');
      assert.equal(seen.after.amount, 121740, 'a refused update changes nothing');
    },
  );

  it(
    'the Express Checkout Element offers wallets only in a group whose types include card',
    BOUNDED,
    async () => {
      const offered = async (types: string[]) =>
        page.evaluate(
          ([key, group, paymentMethodTypes]) =>
            new Promise<unknown>((resolve) => {
              type Express = {
                on(event: 'ready', handler: (event: { availablePaymentMethods?: unknown }) => void): void;
                mount(target: HTMLElement): void;
                destroy(): void;
              };
              const Stripe = (
                window as unknown as {
                  Stripe(key: string): { elements(o: unknown): { create(t: string, o: unknown): Express } };
                }
              ).Stripe;
              const express = Stripe(key)
                .elements({ ...group, paymentMethodTypes })
                .create('expressCheckout', { paymentMethods: { applePay: 'always', googlePay: 'always' } });
              express.on('ready', (event) => {
                express.destroy();
                resolve(event.availablePaymentMethods ?? null);
              });
              express.mount(document.getElementById('host')!);
            }),
          [KEY, PAYMENT, types] as const,
        );
      assert.deepEqual(await offered(['card']), { applePay: true, googlePay: true, link: false });
      assert.equal(await offered(['alipay']), null, 'no card in the group: no wallet button');
    },
  );
});

describe('the Stripe.js stand-in’s calls', () => {
  it(
    'createConfirmationToken sends the group’s current mode and setup_future_usage (only when set)',
    BOUNDED,
    async () => {
      const page = await blankPage();
      try {
        await page.evaluate(
          ([key, group]) => {
            type Group = {
              update(changes: Record<string, unknown>): void;
              create(type: 'payment'): { mount(target: HTMLElement): void };
            };
            const w = window as unknown as {
              Stripe(key: string): {
                elements(o: unknown): Group;
                createConfirmationToken(o: unknown): unknown;
              };
              stripe: unknown;
              group: Group;
            };
            w.stripe = w.Stripe(key);
            w.group = (w.stripe as { elements(o: unknown): Group }).elements({
              ...group,
              paymentMethodTypes: ['card'],
            });
            w.group.create('payment').mount(document.getElementById('host')!);
          },
          [KEY, PAYMENT] as const,
        );
        await page
          .frameLocator('iframe[title="Secure payment input frame"]')
          .getByLabel('Card number')
          .fill('4242424242424242');
        /** Makes a token with the group as `changes` leave it; returns the form Stripe.js posted and the token. */
        const tokenAfter = async (changes: Record<string, unknown>) => {
          const posted = page.waitForRequest(
            (request) =>
              request.method() === 'POST' && request.url() === `${stand.url}/v1/confirmation_tokens`,
          );
          const made = await page.evaluate(async (update) => {
            const w = window as unknown as {
              stripe: {
                createConfirmationToken(o: unknown): Promise<{ confirmationToken?: { id: string } }>;
              };
              group: { update(changes: Record<string, unknown>): void };
            };
            w.group.update(update);
            return w.stripe.createConfirmationToken({ elements: w.group });
          }, changes);
          const form = new URLSearchParams((await posted).postData() ?? '');
          assert.ok(made.confirmationToken, 'a token');
          return { form, token: stand.confirmationTokens.get(made.confirmationToken.id)! };
        };

        const saving = await tokenAfter({ mode: 'setup', setupFutureUsage: 'off_session' });
        assert.equal(saving.form.get('mode'), 'setup');
        assert.equal(saving.form.get('setup_future_usage'), 'off_session');
        assert.equal(saving.form.get('payment_method'), 'pm_card_visa');
        assert.equal(saving.token.setup_future_usage, 'off_session', 'the stand-in records it on the token');

        // Merged: still off_session until the page says null.
        const merged = await tokenAfter({ mode: 'payment', amount: 121740 });
        assert.equal(merged.form.get('mode'), 'payment');
        assert.equal(merged.form.get('setup_future_usage'), 'off_session');

        const reset = await tokenAfter({ setupFutureUsage: null });
        assert.equal(reset.form.get('mode'), 'payment');
        assert.equal(reset.form.has('setup_future_usage'), false);
        assert.equal(reset.token.setup_future_usage ?? null, null);
      } finally {
        await page.context().close();
      }
    },
  );

  it(
    'handleNextAction: a test’s standinNextActionError answers {error} at once, no dialog, the intent still waiting',
    BOUNDED,
    async () => {
      const intent = await stand.client().paymentIntents.create({
        amount: 121740,
        currency: 'gbp',
        payment_method: 'pm_card_authenticationRequired',
        confirm: true,
        // Stripe.js completes 3DS in the page (use_stripe_sdk); no redirect method, so no return_url.
        use_stripe_sdk: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      });
      assert.equal(intent.status, 'requires_action');
      const page = await blankPage();
      try {
        const error = {
          type: 'invalid_request_error',
          code: 'payment_intent_authentication_failure',
          message: 'The authentication window was closed.',
        };
        const answer = await page.evaluate(
          async ([key, clientSecret, hooked]) => {
            const w = window as unknown as {
              Stripe(key: string): { handleNextAction(o: unknown): Promise<Record<string, unknown>> };
              standinNextActionError?: unknown;
            };
            w.standinNextActionError = hooked;
            const result = await w.Stripe(key).handleNextAction({ clientSecret });
            return {
              result,
              dialogs: document.querySelectorAll('[role="dialog"]').length,
              hookLeft: w.standinNextActionError !== undefined,
            };
          },
          [KEY, intent.client_secret!, error] as const,
        );
        assert.deepEqual(answer.result, { error });
        assert.equal(answer.dialogs, 0, 'no authentication dialog');
        assert.equal(answer.hookLeft, false, 'the hook answers one call');
        assert.equal(
          stand.paymentIntents.get(intent.id)?.status,
          'requires_action',
          'the intent has not failed',
        );

        // The next call shows the issuer's page as before; Complete pays.
        const handled = page.evaluate(
          ([key, clientSecret]) =>
            (
              window as unknown as {
                Stripe(key: string): { handleNextAction(o: unknown): Promise<Record<string, unknown>> };
              }
            )
              .Stripe(key)
              .handleNextAction({ clientSecret }),
          [KEY, intent.client_secret!] as const,
        );
        await page
          .frameLocator('iframe[title="Stripe authentication"]')
          .getByRole('button', { name: 'Complete' })
          .click();
        const done = (await handled) as { error?: unknown; paymentIntent?: { status: string } };
        assert.equal(done.error, undefined);
        assert.equal(done.paymentIntent?.status, 'succeeded');
      } finally {
        await page.context().close();
      }
    },
  );
});
