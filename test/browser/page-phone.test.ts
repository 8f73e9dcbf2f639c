/**
 * The hosted page on a phone and a desktop, light and dark, in real Chromium: the wallets as express buttons in
 * one row and the other methods in two rows at most; a focus ring of at least 3:1 against what is behind it on
 * every control; text that grows with the browser's own text size; and a frame that grows with the page (the
 * documented snippet for the plain iframe, the SDK's own handling) so nothing scrolls inside it and the Pay button
 * is never hidden below the frame's bottom edge.
 */

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Frame, FrameLocator, Locator, Page } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import {
  CARD_FEES,
  newTenant,
  openSdkCheckout,
  operatorCall,
  pageEnvironmentPerFile,
  pageUrl,
  paymentFrame,
  RESULTS_DIR,
  sdkInit,
  type Tenant,
  UI_TIMEOUT_MS,
} from '../support/browser.ts';

const PHONE_HEIGHT = 667;

const file = pageEnvironmentPerFile({
  fees: { ...CARD_FEES, apple_pay: { percent: '1.00', fixed: '0.00' } },
});

/**
 * The integrator's site with the documented snippet, `/rent?src=<the page's URL>`: a server of its own on this
 * machine (a browser refuses a local frame in a page that came from nowhere, as a route's answer does).
 */
let site: Promise<{ server: http.Server; origin: string }> | undefined;
function documentedSite(): Promise<{ server: http.Server; origin: string }> {
  site ??= (async () => {
    const server = http.createServer((request, response) => {
      const src = new URL(request.url ?? '/', 'http://localhost').searchParams.get('src');
      if (!src) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(documentedEmbed(src));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    const allowed = await operatorCall(file.env, '', 'PATCH', {
      allowed_origins: [file.env.integratorOrigin, origin],
    });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    return { server, origin };
  })();
  return site;
}
after(async () => (await site)?.server.close());

/**
 * A picture of part of the page. Chromium paints a frame from another site only where the parent's viewport shows
 * it, so a full-page screenshot of the parent can leave the page's frame half blank.
 */
async function screenshot(part: Locator, name: string): Promise<void> {
  await part.screenshot({ path: path.join(RESULTS_DIR, `${name}.png`) });
}

interface Look {
  width: number;
  colorScheme: 'light' | 'dark';
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * The integrator's page built from the embed snippet in docs/iframe.md, as an integrator would paste it: the
 * iframe with its `src`, and the lines that fit the frame to the page. Some of the integrator's own content comes
 * first, so the frame starts below the fold.
 */
function documentedEmbed(src: string): string {
  const doc = fs.readFileSync(new URL('../../docs/iframe.md', import.meta.url), 'utf8');
  const snippet = /```html\n(<iframe[\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(snippet, 'docs/iframe.md shows the iframe');
  assert.match(snippet, /addEventListener\('message'/, 'the snippet fits the frame to the page');
  const page = snippet
    .replace(/src="[^"]*"/, `src="${escapeAttribute(src)}"`)
    .replaceAll('https://pay.example', new URL(src).origin);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Rent</title></head>
<body><h1>Acme Lettings</h1><p style="min-height:400px">Your tenancy, your documents and your rent.</p>
${page}<p>Questions? Call us.</p></body></html>`;
}

/** The hosted page inside the integrator's page made from the documented snippet. */
async function openDocumented(tenant: Pick<Tenant, 'token' | 'sessionId'>, look: Look) {
  const { env } = file;
  const context = await env.browser.newContext({
    viewport: { width: look.width, height: PHONE_HEIGHT },
    colorScheme: look.colorScheme,
  });
  file.contexts.push(context);
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  // tsx compiles the functions handed to evaluate with esbuild's keepNames, which calls __name.
  await context.addInitScript('window.__name = (fn) => fn;');
  const page = await context.newPage();
  await page.goto(`${(await documentedSite()).origin}/rent?src=${encodeURIComponent(pageUrl(env, tenant))}`);
  const frame = page.frameLocator('#rentpay');
  await frame.getByRole('button', { name: /^Pay £/ }).waitFor();
  return { context, page, frame, inner: await paymentFrame(env, page) };
}

/** Waits until the frame's document fits its frame: nothing scrolls inside it. */
async function fitsItsFrame(inner: Frame): Promise<void> {
  try {
    await inner.waitForFunction(
      () => document.documentElement.scrollHeight <= document.documentElement.clientHeight,
    );
  } catch {
    const [scroll, client] = await inner.evaluate(() => [
      document.documentElement.scrollHeight,
      document.documentElement.clientHeight,
    ]);
    assert.fail(`the page scrolls inside its frame: ${scroll} px of content in a ${client} px frame`);
  }
}

/** The parent page scrolls to `target`; it is then in the parent's viewport and not clipped by the frame. */
async function visibleAfterParentScrolls(page: Page, target: Locator): Promise<void> {
  const before = await target.boundingBox();
  assert.ok(before, 'the target is laid out');
  await page.evaluate((y) => window.scrollBy(0, y), before.y - 100);
  const box = await target.boundingBox();
  assert.ok(box, 'the target is laid out');
  const viewport = page.viewportSize();
  assert.ok(viewport);
  assert.ok(box.y >= 0 && box.y + box.height <= viewport.height, `in the parent's viewport (${box.y} px)`);
  const inFrame = await target.evaluate((element) => ({
    bottom: element.getBoundingClientRect().bottom,
    frameHeight: window.innerHeight,
    scrolled: window.scrollY,
  }));
  assert.equal(inFrame.scrolled, 0, 'nothing scrolled inside the frame');
  assert.ok(
    inFrame.bottom <= inFrame.frameHeight,
    `inside the frame (${inFrame.bottom} > ${inFrame.frameHeight})`,
  );
}

/** The number of rows the elements sit in (by their top edge). */
async function rowsOf(options: Locator): Promise<number> {
  const tops = await options.evaluateAll((elements) =>
    elements.map((element) => Math.round(element.getBoundingClientRect().top)),
  );
  return new Set(tops).size;
}

function luminance(rgb: number[]): number {
  const [r, g, b] = rgb.map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function channels(color: string): number[] {
  const found = color.match(/[\d.]+/g);
  assert.ok(found && found.length >= 3, `a colour: ${color}`);
  return found.slice(0, 3).map(Number);
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(channels(a)), luminance(channels(b))].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

interface Ring {
  name: string;
  style: string;
  width: number;
  offset: number;
  color: string;
  /** What the ring is drawn on: the background just above the focused element, where its ring passes. */
  background: string;
}

/** The focused element's focus ring, as computed. */
function focusRing(inner: Frame): Promise<Ring | undefined> {
  return inner.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body || !document.hasFocus()) return undefined;
    // Measured where it is on screen: the focus may still be scrolling it into view, and elementFromPoint finds
    // nothing outside the viewport (the ring would be measured against no background).
    element.scrollIntoView({ block: 'center', behavior: 'instant' });
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    const ringAt =
      box.top - Number.parseFloat(style.outlineOffset) - Number.parseFloat(style.outlineWidth) / 2;
    let background = 'rgb(255, 255, 255)';
    let at = document.elementFromPoint(box.left + box.width / 2, ringAt) ?? element.parentElement;
    for (; at; at = at.parentElement) {
      const color = getComputedStyle(at).backgroundColor;
      if (color !== 'transparent' && !/rgba\(.*, 0\)$/.test(color)) {
        background = color;
        break;
      }
    }
    return {
      name: `${element.tagName.toLowerCase()} ${element.getAttribute('aria-label') ?? element.textContent?.trim() ?? ''}`,
      style: style.outlineStyle,
      width: Number.parseFloat(style.outlineWidth),
      offset: Number.parseFloat(style.outlineOffset),
      color: style.outlineColor,
      background,
    };
  });
}

/**
 * Tabs through the page from the parent's first stop to the Pay button, and in the method group also arrows to
 * an express wallet and back: each focus ring, with its contrast against what it is drawn on.
 */
async function tabThrough(page: Page, inner: Frame): Promise<(Ring & { ratio: number })[]> {
  const rings: (Ring & { ratio: number })[] = [];
  const record = async () => {
    const ring = await focusRing(inner);
    if (ring) rings.push({ ...ring, ratio: contrast(ring.color, ring.background) });
    return ring;
  };
  for (let step = 0; step < 40; step++) {
    await page.keyboard.press('Tab');
    const ring = await record();
    if (ring?.name === 'input Card') {
      await page.keyboard.press('ArrowLeft');
      const wallet = await record();
      assert.match(wallet?.name ?? '', /Pay$/, 'an express wallet is the radio before Card');
      await page.keyboard.press('ArrowRight');
    }
    if (ring?.name.startsWith('button Pay £')) return rings;
  }
  assert.fail(`Tab never reached the Pay button: ${rings.map((r) => r.name).join(', ')}`);
}

async function violations(inner: Frame, state: string): Promise<string[]> {
  return axeViolations(inner, state);
}

async function chooseMethod(frame: FrameLocator, name: string): Promise<void> {
  await frame.getByRole('radio', { name, exact: true }).check();
}

const LOOKS: Look[] = [320, 375, 1280].flatMap((width) =>
  (['light', 'dark'] as const).map((colorScheme) => ({ width, colorScheme })),
);

describe('hosted page on a phone: methods, focus ring, text size', () => {
  for (const look of LOOKS) {
    it(`${look.width} px, ${look.colorScheme}: wallets in one row, the other methods in two, focus rings of 3:1`, async (t) => {
      const { page, frame, inner } = await openDocumented(await newTenant(file.env), look);
      const express = frame.locator('.express .method');
      assert.deepEqual(
        await express.locator('input').evaluateAll((inputs) => inputs.map((i) => i.ariaLabel)),
        ['Apple Pay', 'Google Pay'],
      );
      assert.equal(await rowsOf(express), 1, 'the express buttons share one row');
      assert.equal(await frame.getByText('or pay another way').count(), 1);
      const list = frame.locator('.method-list .method');
      assert.equal(await list.count(), 4);
      const listRows = await rowsOf(list);
      assert.ok(listRows <= 2, `the other methods take ${listRows} rows`);
      // Each option keeps its name and fee inside its box.
      for (const option of await frame.locator('.method').all()) {
        const fit = await option.evaluate((element) => {
          const text = element.querySelector('.method-name')?.parentElement as HTMLElement;
          const box = element.getBoundingClientRect();
          return {
            overflow: Math.max(
              text.scrollWidth - text.clientWidth,
              text.getBoundingClientRect().right - box.right,
            ),
            height: box.height,
          };
        });
        assert.ok(fit.overflow <= 0, `${await option.innerText()} overflows by ${fit.overflow} px`);
        assert.ok(fit.height <= 64, `${await option.innerText()} is ${fit.height} px high`);
      }
      const methodsHeight = await frame.locator('.methods').evaluate((e) => e.getBoundingClientRect().height);
      assert.ok(methodsHeight <= 240, `the methods are ${methodsHeight} px high`);
      t.diagnostic(
        `express: 1 row; other methods: ${listRows} rows; methods ${Math.round(methodsHeight)} px high`,
      );
      await screenshot(frame.locator('.methods'), `page-phone-methods-${look.width}px-${look.colorScheme}`);

      const rings = await tabThrough(page, inner);
      assert.ok(rings.length >= 6, `${rings.length} focus stops`);
      const weakest = rings.reduce((min, ring) => (ring.ratio < min.ratio ? ring : min));
      t.diagnostic(
        `${rings.length} focus rings, weakest ${weakest.ratio.toFixed(2)}:1 (${weakest.name}: ${weakest.color} on ${weakest.background})`,
      );
      for (const ring of rings) {
        assert.notEqual(ring.style, 'none', `${ring.name} shows a focus ring`);
        assert.ok(ring.width >= 2, `${ring.name}: a ${ring.width} px ring`);
        assert.ok(ring.offset >= 0, `${ring.name}: the ring is outside the control`);
        assert.ok(
          ring.ratio >= 3,
          `${ring.name}: ${ring.color} on ${ring.background} is ${ring.ratio.toFixed(2)}:1`,
        );
      }
    });
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe finds nothing in the method layout at 320 px, ${colorScheme}, card and a wallet chosen`, async () => {
      const { frame, inner } = await openDocumented(await newTenant(file.env), { width: 320, colorScheme });
      const found = await violations(inner, 'card chosen');
      await chooseMethod(frame, 'Apple Pay');
      await frame.getByRole('button', { name: 'Pay £1,212.00 with Apple Pay' }).waitFor();
      assert.equal(await frame.locator('.express .selected').innerText(), 'Apple Pay\n+£12.00');
      await screenshot(frame.locator('form'), `page-phone-express-${colorScheme}`);
      found.push(...(await violations(inner, 'Apple Pay chosen')));
      assert.deepEqual(found, []);
    });
  }

  it('the view switch is tabs, not a second Pay button', async () => {
    const { frame } = await openDocumented(await newTenant(file.env), { width: 375, colorScheme: 'light' });
    const look = (name: string) =>
      frame
        .locator('.views')
        .getByText(name, { exact: true })
        .evaluate((element) => {
          const style = getComputedStyle(element);
          return {
            background: style.backgroundColor,
            underline: style.borderBottomWidth,
            weight: style.fontWeight,
          };
        });
    const pay = await frame
      .getByRole('button', { name: /^Pay £/ })
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    const chosen = await look('Pay now');
    assert.notEqual(chosen.background, pay, 'not filled like Pay');
    assert.equal(chosen.background, 'rgba(0, 0, 0, 0)');
    assert.equal(chosen.underline, '3px');
    assert.equal(chosen.weight, '600');
    const other = await look('Recurring rent');
    assert.equal(other.background, 'rgba(0, 0, 0, 0)');
    assert.equal(other.weight, '400');
  });

  it('text follows the browser’s text size: 16 px as designed, larger when the tenant sets it larger', async () => {
    const { context, page, frame, inner } = await openDocumented(await newTenant(file.env), {
      width: 320,
      colorScheme: 'light',
    });
    const sizes = () =>
      inner.evaluate(() => {
        const px = (selector: string, property: 'fontSize' | 'minHeight' | 'maxWidth' = 'fontSize') => {
          const element = document.querySelector(selector);
          return element ? Number.parseFloat(getComputedStyle(element)[property]) : Number.NaN;
        };
        return {
          body: px('body'),
          h1: px('h1'),
          method: px('.method-list .method'),
          fee: px('.method-fee'),
          pay: px('button.pay', 'minHeight'),
          main: px('main', 'maxWidth'),
          horizontalScroll: document.documentElement.scrollWidth > document.documentElement.clientWidth,
        };
      });
    assert.deepEqual(await sizes(), {
      body: 16,
      h1: 20,
      method: 14,
      fee: 12,
      pay: 44,
      main: 480,
      horizontalScroll: false,
    });
    // The frame is another site's (its own renderer): the browser's text size is set for it too.
    for (const target of [page, inner]) {
      const cdp = await context.newCDPSession(target);
      await cdp.send('Page.setFontSizes', { fontSizes: { standard: 24 } });
    }
    await inner.waitForFunction(() => getComputedStyle(document.body).fontSize === '24px');
    assert.deepEqual(await sizes(), {
      body: 24,
      h1: 30,
      method: 21,
      fee: 18,
      pay: 66,
      main: 720,
      horizontalScroll: false,
    });
    await fitsItsFrame(inner);
    await visibleAfterParentScrolls(page, frame.getByRole('button', { name: /^Pay £/ }));
    await screenshot(frame.locator('.methods'), 'page-phone-text-24px');
  });
});

describe('the frame grows with the page: nothing scrolls inside it', () => {
  it('the hosted page in the documented snippet at 375 px: no scroll inside the frame; Pay in view, also as the page grows', async () => {
    const { page, frame, inner } = await openDocumented(await newTenant(file.env), {
      width: 375,
      colorScheme: 'light',
    });
    const pay = frame.getByRole('button', { name: /^Pay £/ });
    const frameHeight = () => page.locator('#rentpay').evaluate((e) => e.getBoundingClientRect().height);
    await fitsItsFrame(inner);
    await visibleAfterParentScrolls(page, pay);
    const first = await frameHeight();
    // Field errors make the page taller: the frame follows.
    await pay.click();
    await frame.getByText('Enter your card number.').waitFor();
    await fitsItsFrame(inner);
    assert.ok((await frameHeight()) > first, 'the frame grew with the errors');
    await visibleAfterParentScrolls(page, pay);
    // Another method: a shorter page, and a frame that shrinks to it.
    await chooseMethod(frame, 'Alipay');
    await frame.getByText('You will confirm the payment with Alipay').waitFor();
    await fitsItsFrame(inner);
    await page.waitForFunction(
      (height) => document.getElementById('rentpay')!.getBoundingClientRect().height < height,
      first,
    );
    await visibleAfterParentScrolls(page, pay);
  });

  it('the SDK’s frame at 375 px: no scroll inside it; the wallet’s Pay in view, also as the form grows', async () => {
    const tenant = await newTenant(file.env);
    const { context, page } = await openSdkCheckout(file.env);
    file.contexts.push(context);
    await page.setViewportSize({ width: 375, height: PHONE_HEIGHT });
    assert.deepEqual(await sdkInit(file.env, page, tenant), { ok: true });
    const frame = page.frameLocator('#pay iframe');
    const inner = await paymentFrame(file.env, page);
    await frame.getByLabel('Card number').waitFor();
    await fitsItsFrame(inner);
    await chooseMethod(frame, 'Google Pay');
    const pay = frame.getByRole('button', { name: 'Pay £1,200.00 with Google Pay' });
    await pay.waitFor();
    await fitsItsFrame(inner);
    await visibleAfterParentScrolls(page, pay);
    // Back to the card and SVC.pay() with nothing typed: the field errors make the form taller.
    await chooseMethod(frame, 'Card');
    await page.evaluate(() =>
      (window as unknown as { SVC: { pay(): Promise<unknown> } }).SVC.pay().catch(() => {}),
    );
    await frame.getByText('Enter your card number.').waitFor();
    await fitsItsFrame(inner);
    await visibleAfterParentScrolls(page, frame.locator('.summary'));
  });
});
