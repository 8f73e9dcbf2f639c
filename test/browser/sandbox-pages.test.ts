/**
 * The sandbox's 3DS, APM and wallet pages in headless Chromium, under their own CSP: what sandbox-page.js does
 * after a click (the POST, the postMessage to the opener or the framing page, the popup closing), its error
 * text, and axe-core.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Api } from '../support/api-client.ts';
import { leaseBrowser, releaseBrowser, UI_TIMEOUT_MS } from '../support/browser.ts';
import { runJobs, type TestApp } from '../support/helpers.ts';
import { answerChallenge, cardToken, newTenant, PAN, startPaymentApp } from '../support/payment-client.ts';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Received {
  origin: string;
  // biome-ignore lint/suspicious/noExplicitAny: the message as posted
  data: any;
}

describe('sandbox pages in a browser', () => {
  let t: TestApp;
  let api: Api;
  let browser: Browser;
  let base: string;
  const cspErrors: string[] = [];

  before(async () => {
    ({ t, api } = await startPaymentApp());
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await leaseBrowser();
  });
  after(async () => {
    if (browser) await releaseBrowser(browser);
    await t.close();
    assert.deepEqual(cspErrors, [], 'no CSP violation on any sandbox page');
  });

  /** A page on the app's origin (no CSP of its own) that collects the messages posted to it. */
  async function openerPage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(`${base}/healthz`);
    await page.evaluate(() => {
      const w = window as unknown as { received: unknown[] };
      w.received = [];
      window.addEventListener('message', (event) =>
        w.received.push({ origin: event.origin, data: event.data }),
      );
    });
    return page;
  }

  function watch(page: Page): Page {
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    return page;
  }

  const received = (page: Page) =>
    page
      .waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0)
      .then(() => page.evaluate(() => (window as unknown as { received: Received[] }).received));

  const path = (url: string) => new URL(url).pathname;

  it('3DS in a popup: Authorise posts the answer, tells the opener by postMessage and closes the popup', async () => {
    const tenant = await newTenant(t, api);
    const waiting = await tenant.client.pay({ card_token: await cardToken(t, PAN.threeDsAlways) });
    const chargeId = path(waiting.body.next_action.url).split('/').pop();
    const opener = await openerPage();
    const [popup] = await Promise.all([
      opener.context().waitForEvent('page'),
      opener.evaluate(
        (url) => {
          window.open(url, 'rentpay-3ds', 'popup');
        },
        `${base}${path(waiting.body.next_action.url)}`,
      ),
    ]);
    watch(popup);
    await popup.getByRole('heading', { level: 1, name: '3D Secure check (sandbox)' }).waitFor();
    assert.equal(await popup.locator('.amount').innerText(), 'Amount: £1,217.40');
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Authorise' }).click();
    await closed;
    assert.deepEqual(await received(opener), [
      {
        origin: base,
        data: {
          type: 'rentpay:sandbox-complete',
          kind: 'three_ds',
          charge_id: chargeId,
          outcome: 'authorise',
        },
      },
    ]);
    await runJobs(t);
    assert.equal((await tenant.client.payment(waiting.body.payment_id)).body.status, 'succeeded');
    await opener.context().close();
  });

  it('an APM page in a frame: Fail tells the framing page and shows that it is done', async () => {
    const tenant = await newTenant(t, api);
    const waiting = await tenant.client.pay({ method: 'alipay' });
    const chargeId = path(waiting.body.next_action.url).split('/').pop();
    const host = await openerPage();
    watch(host);
    await host.evaluate(
      (url) => {
        const frame = document.createElement('iframe');
        frame.src = url;
        frame.title = 'Alipay';
        document.body.append(frame);
      },
      `${base}${path(waiting.body.next_action.url)}`,
    );
    const frame = host.frameLocator('iframe');
    await frame.getByRole('heading', { name: 'Alipay (sandbox)' }).waitFor();
    await frame.getByRole('button', { name: 'Fail' }).click();
    await frame.getByText('Done. You can close this window.').waitFor();
    assert.equal(await frame.getByRole('button').count(), 0, 'the buttons are gone');
    assert.deepEqual(await received(host), [
      {
        origin: base,
        data: { type: 'rentpay:sandbox-complete', kind: 'apm', charge_id: chargeId, outcome: 'fail' },
      },
    ]);
    await runJobs(t);
    assert.equal((await tenant.client.payment(waiting.body.payment_id)).body.failure_code, 'apm_declined');
    await host.context().close();
  });

  it('wallet sheet in a popup: the opener gets the token, which pays', async () => {
    const opener = await openerPage();
    const [popup] = await Promise.all([
      opener.context().waitForEvent('page'),
      opener.evaluate((url) => {
        window.open(url, 'rentpay-wallet', 'popup');
      }, `${base}/sandbox/wallet/google_pay?amount=1200.00`),
    ]);
    watch(popup);
    await popup.getByRole('heading', { name: 'Google Pay (sandbox)' }).waitFor();
    // The sheet writes the amount as the tenant reads it everywhere else.
    assert.equal(await popup.locator('.amount').innerText(), 'Amount: £1,200.00');
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Authorise' }).click();
    await closed;
    const [message] = await received(opener);
    assert.deepEqual(
      { ...message?.data, token: undefined },
      {
        type: 'rentpay:sandbox-complete',
        kind: 'wallet',
        wallet: 'google_pay',
        outcome: 'authorise',
        token: undefined,
      },
    );
    const { client } = await newTenant(t, api);
    const paid = await client.pay({ method: 'google_pay', wallet_token: message?.data.token });
    assert.equal(paid.body.status, 'succeeded');
    await opener.context().close();
  });

  it('a challenge answered elsewhere: the click shows "This payment is no longer waiting." as an alert', async () => {
    const { client } = await newTenant(t, api);
    const waiting = await client.pay({ card_token: await cardToken(t, PAN.threeDsAlways) });
    const context = await browser.newContext();
    const page = watch(await context.newPage());
    await page.goto(`${base}${path(waiting.body.next_action.url)}`);
    await page.getByRole('button', { name: 'Authorise' }).waitFor();
    await answerChallenge(t, waiting.body.next_action.url, 'fail');
    await page.getByRole('button', { name: 'Authorise' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'This payment is no longer waiting.');
    assert.equal(await page.getByRole('button', { name: 'Fail' }).isDisabled(), true);
    await context.close();
  });

  it('axe-core finds no violation; the buttons can be reached and pressed with the keyboard', async () => {
    const { client } = await newTenant(t, api);
    const waiting = await client.pay({ method: 'unionpay' });
    const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
    const page = watch(await context.newPage());
    await page.goto(`${base}${path(waiting.body.next_action.url)}`);
    await page.getByRole('button', { name: 'Authorise' }).waitFor();
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected above
      const result = await (window as any).axe.run(document);
      // biome-ignore lint/suspicious/noExplicitAny: axe's result shape
      return result.violations.map((v: any) => ({ id: v.id, impact: v.impact }));
    });
    assert.deepEqual(violations, []);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Authorise');
    await page.keyboard.press('Enter');
    await page.getByText('Done. You can close this window.').waitFor();
    await runJobs(t);
    assert.equal((await client.payment(waiting.body.payment_id)).body.status, 'succeeded');
    await context.close();
  });
});
