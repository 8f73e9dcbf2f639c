/**
 * The hosted payment page in headless Chromium, framed by an integrator's page on another site. Each test
 * ends with a screenshot in test-results/ and checks the database, not only the screen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Frame, FrameLocator, Page, Route } from 'playwright-core';
import {
  allRowsText,
  fillCard,
  focused,
  newTenant,
  type OpenedPage,
  openInIntegratorPage,
  openSdkCheckout,
  type PageEnvironment,
  pageUrl,
  screenshot,
  startPageEnvironment,
  type Tenant,
  UI_TIMEOUT_MS,
  withFees,
} from '../support/browser.ts';
import { cardToken, clientOf } from '../support/payment-client.ts';

const VISA = '4242424242424242';
const THREE_DS_FIRST = '4000000000003220';
const CVC = '737';
const NOT_CHARGED = 'You have not been charged.';
const DECLINES = [
  {
    number: '4000000000000002',
    code: 'card_declined',
    message: 'Your card was declined.',
    next: 'Try another card, or ask your bank why it was declined.',
  },
  {
    number: '4000000000009995',
    code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
    next: 'Try another card or another way to pay.',
  },
  {
    number: '4000000000000069',
    code: 'expired_card',
    message: 'Your card has expired.',
    next: 'Check the expiry date, or use another card.',
  },
  {
    number: '4000000000000127',
    code: 'incorrect_cvc',
    message: "Your card's security code is incorrect.",
    next: 'Check the 3-digit security code on the back of your card and try again.',
  },
];
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let env: PageEnvironment;
const opened: OpenedPage[] = [];

before(async () => {
  env = await startPageEnvironment();
});
after(async () => {
  for (const { context } of opened) await context.close();
  await env.close();
});

async function open(
  tenant: { token: string; sessionId: string },
  options: { origin?: string; width?: number; colorScheme?: 'light' | 'dark' } = {},
) {
  const result = await openInIntegratorPage(env, tenant, options);
  opened.push(result);
  return result;
}

/** The payment page's frame as a Frame (for evaluate and its URL), waiting for it up to the deadline. */
async function pageFrame(page: Page): Promise<Frame> {
  let frame: Frame | undefined;
  await waitUntil('the payment page’s frame in the integrator’s page', () => {
    frame = page.frames().find((candidate) => candidate.url().startsWith(`${env.baseUrl}/third-party`));
    return frame !== undefined;
  });
  return frame!;
}

async function paymentsOf(sessionId: string) {
  return env.t.db.query<{
    id: string;
    status: string;
    failure_code: string | null;
    method: string;
    amount_pence: number;
  }>(
    'SELECT id, status, failure_code, method, amount_pence FROM payments WHERE session_id = $1 ORDER BY created_at',
    [sessionId],
  );
}

async function eventsOf(paymentId: string): Promise<string[]> {
  const rows = await env.t.db.query<{ type: string }>(
    `SELECT type FROM events WHERE data->'payment'->>'payment_id' = $1 ORDER BY created_at`,
    [paymentId],
  );
  return rows.map((row) => row.type);
}

/**
 * Checks `condition` every 20 ms until it holds; fails the test, naming `what`, if it has not within the deadline
 * (UI_TIMEOUT_MS, as for the suite's other waits, for a loaded CI machine).
 */
async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = UI_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() >= deadline) assert.fail(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A Playwright wait with an explicit deadline whose timeout fails the test naming `what`. */
async function within<T>(
  what: string,
  wait: (timeout: number) => Promise<T>,
  timeoutMs = UI_TIMEOUT_MS,
): Promise<T> {
  try {
    return await wait(timeoutMs);
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      assert.fail(`Timed out after ${timeoutMs} ms waiting for ${what}: ${(error as Error).message}`);
    }
    throw error;
  }
}

describe('hosted page: headers and framing', () => {
  it('sends the CSP with the integrator’s origins as frame-ancestors, no-referrer and no caching', async () => {
    const tenant = await newTenant(env);
    const response = await fetch(pageUrl(env, tenant));
    assert.equal(response.status, 200);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, new RegExp(`frame-ancestors ${env.integratorOrigin}(;|$)`));
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const html = await response.text();
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
  });

  it('an unknown token frames for no one; in the SDK only the origin that asked, to show "session expired"', async () => {
    const response = await fetch(`${env.baseUrl}/third-party?token=rp_ust_nope&session_id=ses_nope`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    const origin = encodeURIComponent(env.strangerOrigin);
    const sdk = await fetch(`${env.baseUrl}/third-party?sdk=1&origin=${origin}&token=rp_ust_nope`);
    assert.match(
      sdk.headers.get('content-security-policy') ?? '',
      new RegExp(`frame-ancestors ${env.strangerOrigin}(;|$)`),
    );
    const notAnOrigin = await fetch(
      `${env.baseUrl}/third-party?sdk=1&origin=${encodeURIComponent('javascript:alert(1)')}&token=rp_ust_nope`,
    );
    assert.match(notAnOrigin.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  });

  it('serves its assets compressed and immutable, and 404s unknown ones', async () => {
    const html = await (await fetch(`${env.baseUrl}/third-party`)).text();
    const script = /src="(\/third-party\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${env.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assert.equal(asset.headers.get('content-encoding'), 'gzip');
    const missing = await fetch(`${env.baseUrl}/third-party/assets/nope.js`);
    assert.equal(missing.status, 404);
  });

  it('a site the integrator did not allow cannot frame the page', async () => {
    const tenant = await newTenant(env);
    const { page } = await open(tenant, { origin: env.strangerOrigin });
    await page.getByRole('heading', { name: 'Acme Lettings' }).waitFor();
    const iframe = page.frames().find((frame) => frame !== page.mainFrame());
    assert.ok(iframe);
    // Chromium replaces a frame refused by frame-ancestors with its error page.
    await waitUntil(
      'Chromium to replace the refused frame with its error page',
      () => !iframe.url().startsWith(env.baseUrl),
    );
    assert.equal(await iframe.locator('#app').count(), 0);
    await screenshot(page, 'page-refused-origin');
  });
});

describe('hosted page: card payments', () => {
  it('shows the tenant, rent, fee and total, and takes the token out of the address bar', async () => {
    const tenant = await newTenant(env, '850.00');
    const { page, frame } = await open(tenant);
    await frame.getByRole('heading', { name: 'Pay rent' }).waitFor();
    assert.equal(await frame.getByLabel('Amount (£)').inputValue(), '850.00');
    await frame.getByRole('button', { name: 'Pay £850.00' }).waitFor();
    const inner = await pageFrame(page);
    assert.equal(inner.url(), `${env.baseUrl}/third-party`);
    assert.match(await frame.locator('.who').innerText(), new RegExp(tenant.paymentReference));
  });

  it('pays with the success card and records the payment and its event', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await fillCard(frame, VISA, CVC);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await screenshot(page, 'page-card-success');
    const [payment, ...others] = await paymentsOf(tenant.sessionId);
    assert.equal(others.length, 0);
    assert.equal(payment?.status, 'succeeded');
    assert.deepEqual(await eventsOf(payment!.id), ['payment_success']);
  });

  for (const decline of DECLINES) {
    it(`shows "${decline.message}" for ${decline.code} and lets the tenant try again`, async () => {
      const tenant = await newTenant(env);
      const { page, frame } = await open(tenant);
      await fillCard(frame, decline.number, CVC);
      await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
      const alert = frame.getByRole('alert');
      await alert.waitFor();
      // The reason, that nothing was charged, and what to do next.
      assert.equal((await alert.innerText()).trim(), `${decline.message} ${NOT_CHARGED} ${decline.next}`);
      await screenshot(page, `page-decline-${decline.code}`);
      const [payment] = await paymentsOf(tenant.sessionId);
      assert.equal(payment?.status, 'failed');
      assert.equal(payment?.failure_code, decline.code);
      assert.deepEqual(await eventsOf(payment!.id), ['payment_failed']);

      await fillCard(frame, VISA, CVC);
      await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
      await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
      assert.deepEqual(
        (await paymentsOf(tenant.sessionId)).map((row) => row.status),
        ['failed', 'succeeded'],
      );
    });
  }

  it('checks the card inline before sending anything', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await fillCard(frame, '4242424242424241', '12', '01 / 20');
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByText('Your card number is invalid.').waitFor();
    await frame.getByText('Your card has expired.').waitFor();
    await frame.getByText('Your card’s security code is 3 digits.').waitFor();
    assert.equal(await frame.getByLabel('Card number').getAttribute('aria-invalid'), 'true');
    assert.equal(await frame.getByLabel('Card number').evaluate((el) => el === document.activeElement), true);
    await screenshot(page, 'page-card-inline-errors');
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });

  it('a double click on Pay charges once', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await fillCard(frame, VISA, CVC);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).dblclick();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await screenshot(page, 'page-double-click');
    const payments = await paymentsOf(tenant.sessionId);
    assert.equal(payments.length, 1);
    const [charges] = await env.t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sandbox_charges WHERE idempotency_key = $1',
      [payments[0]!.id],
    );
    assert.equal(charges?.n, 1);
  });

  it('3DS inside the page: Authorise completes the payment', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await fillCard(frame, THREE_DS_FIRST, CVC);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByRole('heading', { name: 'Confirm it’s you' }).waitFor();
    const challenge = frame.frameLocator('iframe[title="3D Secure check"]');
    await screenshot(page, 'page-3ds-challenge');
    await challenge.getByRole('button', { name: 'Authorise' }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await screenshot(page, 'page-3ds-authorised');
    const [payment] = await paymentsOf(tenant.sessionId);
    assert.equal(payment?.status, 'succeeded');
    assert.deepEqual(await eventsOf(payment!.id), ['payment_success']);
  });

  it('3DS on a phone (375 px): the step takes focus, the challenge fits its frame, and the plain iframe hears the new height', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant, { width: 375 });
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the test's own global
      const w = window as any;
      w.heights = [];
      window.addEventListener('message', (event) => {
        if (event.data?.source === 'rentpay' && event.data.type === 'resize')
          w.heights.push(event.data.height);
      });
    });
    await fillCard(frame, THREE_DS_FIRST, CVC);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    const heading = frame.getByRole('heading', { name: 'Confirm it’s you' });
    await focused(heading);
    // The challenge: the frame inside the payment page's frame.
    const inner = page.frames().find((f) => f.parentFrame()?.url().startsWith(`${env.baseUrl}/third-party`));
    assert.ok(inner, 'the challenge frame');
    await inner.getByRole('button', { name: 'Authorise' }).waitFor();
    const fit = await inner.evaluate(() => ({
      scroll: document.documentElement.scrollHeight,
      view: document.documentElement.clientHeight,
    }));
    assert.ok(
      fit.scroll <= fit.view,
      `the challenge fits without scrolling (${fit.scroll} > ${fit.view} px)`,
    );
    await screenshot(page, 'page-3ds-375px');
    // The height is sent from a ResizeObserver, a little after the challenge shows: the last message comes to match.
    const inPage = await (await pageFrame(page)).evaluate(() =>
      Math.ceil(document.documentElement.getBoundingClientRect().height),
    );
    await within(`a resize message of the page's height with the challenge (${inPage} px)`, (timeout) =>
      page.waitForFunction(
        (height) => (window as unknown as { heights: number[] }).heights.at(-1) === height,
        inPage,
        { timeout },
      ),
    );
  });

  it('3DS inside the page: Fail shows why and charges nothing', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await fillCard(frame, THREE_DS_FIRST, CVC);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.frameLocator('iframe[title="3D Secure check"]').getByRole('button', { name: 'Fail' }).click();
    const alert = frame.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /could not authenticate/);
    await screenshot(page, 'page-3ds-failed');
    const [payment] = await paymentsOf(tenant.sessionId);
    assert.equal(payment?.status, 'failed');
    assert.equal(payment?.failure_code, 'authentication_failed');
  });
});

describe('hosted page: session expiry', () => {
  it('an expired token shows "Session expired"', async () => {
    const tenant = await newTenant(env);
    env.t.clock.advance(16 * 60_000);
    const { page, frame } = await open(tenant);
    await frame.getByRole('heading', { name: 'Session expired' }).waitFor();
    await screenshot(page, 'page-session-expired');
  });

  it('a session that lapses while the page is open shows "Session expired" on Pay, and nothing is charged', async () => {
    const tenant = await newTenant(env);
    const { frame } = await open(tenant);
    await fillCard(frame, VISA, CVC);
    env.t.clock.advance(31 * 60_000);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByRole('heading', { name: 'Session expired' }).waitFor();
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });

  it('a session id that does not belong to the token is refused', async () => {
    const tenant = await newTenant(env);
    const other = await newTenant(env);
    const { frame } = await open({ token: tenant.token, sessionId: other.sessionId });
    await frame.getByRole('heading', { name: 'Session expired' }).waitFor();
  });
});

describe('hosted page: accessibility', () => {
  it('axe-core finds no serious or critical violation, at 320 px wide', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant, { width: 320 });
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).waitFor();
    const inner = await pageFrame(page);
    await inner.evaluate(axeSource);
    const violations = await inner.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected above
      const result = await (window as any).axe.run(document);
      // biome-ignore lint/suspicious/noExplicitAny: axe's result shape
      return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    const serious = violations.filter(
      (v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical',
    );
    assert.deepEqual(serious, []);
    const size = await inner.evaluate(() => ({
      width: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight,
    }));
    assert.ok(size.width <= 320, `no horizontal scrolling at 320 px (content is ${size.width} px wide)`);
    await screenshot(page, 'page-320px');
    // Taller than a fixed 700 px frame at any width: the page reports its height to the parent, which fits the frame
    // to it (the documented snippet; page-phone.test.ts follows it), so nothing scrolls inside the frame.
    await page.evaluate(() => {
      window.addEventListener('message', (event) => {
        if (event.data?.source === 'rentpay' && event.data.type === 'resize')
          (window as unknown as { reported: number }).reported = event.data.height;
      });
    });
    await page.setViewportSize({ width: 600, height: 800 });
    await within('the payment page’s frame to widen past 500 px', (timeout) =>
      inner.waitForFunction(() => document.documentElement.clientWidth > 500, undefined, { timeout }),
    );
    const wide = await inner.evaluate(() => document.documentElement.scrollHeight);
    await screenshot(page, 'page-600px');
    await within('the page to report its height at 600 px', (timeout) =>
      page.waitForFunction(
        (height) => Math.abs(((window as unknown as { reported?: number }).reported ?? 0) - height) <= 1,
        wide,
        { timeout },
      ),
    ).catch(async (error) => {
      const reported = await page.evaluate(() => (window as unknown as { reported?: number }).reported);
      throw new Error(`reported ${reported}, content ${wide}: ${error}`);
    });
  });

  it('follows the system’s dark mode; every control is at least 44 px high; axe finds nothing at night either', async () => {
    const tenant = await newTenant(env);
    const client = clientOf(env.t, tenant.token);
    assert.equal((await client.saveCard(await cardToken(env.t, VISA))).status, 201);
    const { page, frame } = await open(tenant, { width: 375, colorScheme: 'dark' });
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).waitFor();
    const inner = await pageFrame(page);
    assert.equal(await inner.evaluate(() => document.documentElement.dataset.theme), 'night');
    const small = await inner.evaluate(() =>
      [
        ...document.querySelectorAll(
          'button, select, input:not([type=radio]):not([type=checkbox]), label.check, .method',
        ),
      ]
        .filter((el) => (el as HTMLElement).offsetParent !== null)
        .map((el) => ({
          what: `${el.tagName} ${el.textContent?.trim().slice(0, 30)}`,
          h: el.getBoundingClientRect().height,
        }))
        .filter((target) => target.h < 44),
    );
    assert.deepEqual(small, [], 'targets under 44 px');
    await inner.evaluate(axeSource);
    const violations = await inner.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected above
      const result = await (window as any).axe.run(document, {
        runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'],
      });
      // biome-ignore lint/suspicious/noExplicitAny: axe's result shape
      return result.violations.map((v: any) => `${v.id} (${v.nodes.length})`);
    });
    assert.deepEqual(violations, []);
    await screenshot(page, 'page-375px-dark');
  });

  it('can be filled and paid with the keyboard alone', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await frame.getByLabel('Amount (£)').focus();
    const order: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const focused = await frame
        .locator(':focus')
        .evaluate((el) => el.getAttribute('id') ?? el.getAttribute('name') ?? el.tagName);
      order.push(focused);
      if (focused === 'card-number') break;
    }
    assert.equal(order.at(-1), 'card-number', `Tab reaches the card number: ${order.join(', ')}`);
    await page.keyboard.type(VISA);
    await page.keyboard.press('Tab');
    await page.keyboard.type('1230');
    await page.keyboard.press('Tab');
    await page.keyboard.type(CVC);
    await page.keyboard.press('Enter');
    await focused(frame.getByRole('heading', { name: 'Payment successful' }));
  });
});

describe('hosted page: card data', () => {
  it('no card number or CVC typed into the page reaches a table or a log line', async () => {
    const text = await allRowsText(env.t);
    const logs = env.t.logs.text;
    const cvcAlone = new RegExp(`(^|[^A-Za-z0-9])${CVC}([^A-Za-z0-9]|$)`);
    for (const number of [VISA, THREE_DS_FIRST, ...DECLINES.map((d) => d.number)]) {
      assert.ok(!text.includes(number), `the database holds ${number}`);
      assert.ok(!logs.includes(number), `the logs hold ${number}`);
    }
    assert.ok(!cvcAlone.test(text), 'the database holds the CVC');
    assert.ok(!cvcAlone.test(logs), 'the logs hold the CVC');
    assert.ok(text.includes('payments: '), 'the check saw the payments table');
  });
});

describe('hosted page: cancelling a step that already ended', () => {
  it('Cancel after the 3DS was answered (409): the page settles on the payment’s real status, succeeded', async () => {
    const tenant = await newTenant(env);
    const { page, frame, context } = await open(tenant);
    await fillCard(frame, THREE_DS_FIRST, CVC);
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByRole('heading', { name: 'Confirm it’s you' }).waitFor();
    // Hold the page's polls of the payment (not the cancel) until the cancel has been answered, so the
    // customer's Cancel meets a payment that has already succeeded, as when the two cross.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = async (route: Route) => {
      if (route.request().method() === 'GET') await released;
      await route.continue().catch(() => undefined);
    };
    await context.route(/\/api\/client\/payments\/pay_[^/]+$/, hold);
    await frame
      .frameLocator('iframe[title="3D Secure check"]')
      .getByRole('button', { name: 'Authorise' })
      .click();
    await waitUntil(
      'the payment to be recorded as succeeded after Authorise',
      async () => (await paymentsOf(tenant.sessionId))[0]?.status === 'succeeded',
    );
    const cancelAnswered = page.waitForResponse((response) => response.url().endsWith('/cancel'));
    await frame.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await cancelAnswered).status(), 409);
    release();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await context.unroute(/\/api\/client\/payments\/pay_[^/]+$/, hold);
    assert.equal((await paymentsOf(tenant.sessionId))[0]?.status, 'succeeded');
  });
});

/** The SDK's frame, framed by the integrator's page with no SDK: the test is the parent and posts what it likes. */
async function bareFrame(
  tenant: Pick<Tenant, 'token'>,
): Promise<{ page: Page; frame: FrameLocator; context: BrowserContext }> {
  const { context, page } = await openSdkCheckout(env, 'umd');
  opened.push({ context, page, frame: page.frameLocator('#bare') });
  const src = `${env.baseUrl}/third-party?sdk=1&origin=${encodeURIComponent(env.integratorOrigin)}&token=${encodeURIComponent(tenant.token)}`;
  await page.evaluate(
    ({ src, origin }) => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      w.frameMessages = [];
      const iframe = document.createElement('iframe');
      iframe.id = 'bare';
      iframe.style.cssText = 'width:100%;height:600px;border:0';
      w.postToFrame = (message: Record<string, unknown>) =>
        iframe.contentWindow?.postMessage({ source: 'rentpay', v: 1, ...message }, origin);
      window.addEventListener('message', (event) => {
        if (event.source !== iframe.contentWindow || event.origin !== origin) return;
        w.frameMessages.push(event.data);
      });
      iframe.src = src;
      document.body.appendChild(iframe);
    },
    { src, origin: env.baseUrl },
  );
  await waitForMessage(page, 'loaded');
  return { page, frame: page.frameLocator('#bare'), context };
}

async function waitForMessage(page: Page, type: string): Promise<Record<string, unknown>> {
  const handle = await within(`a "${type}" message from the SDK frame`, (timeout) =>
    page.waitForFunction(
      (type) =>
        (window as unknown as { frameMessages: { type: string }[] }).frameMessages.find(
          (m) => m.type === type,
        ),
      type,
      { timeout },
    ),
  );
  return (await handle.jsonValue()) as Record<string, unknown>;
}

async function postToFrame(page: Page, message: Record<string, unknown>): Promise<void> {
  await page.evaluate((message) => {
    (window as unknown as { postToFrame(m: unknown): void }).postToFrame(message);
  }, message);
}

const GOOD_OPTIONS = {
  pure_amount: '10.00',
  isAmountEditable: false,
  reference: 'BARE-1',
  features: {},
  appearance: undefined,
  debug: false,
};

describe('hosted page: the SDK frame checks what its parent sends', () => {
  it('init with a non-string pure_amount is refused with init_error invalid_option, and nothing crashes', async () => {
    const tenant = await newTenant(env);
    const { page } = await bareFrame(tenant);
    await postToFrame(page, { type: 'init', options: { ...GOOD_OPTIONS, pure_amount: 5 } });
    const refused = await waitForMessage(page, 'init_error');
    assert.equal((refused.error as { code: string }).code, 'invalid_option');
    assert.match((refused.error as { message: string }).message, /pure_amount/);
  });

  it('init with features that are not an object is refused the same way', async () => {
    const tenant = await newTenant(env);
    const { page } = await bareFrame(tenant);
    await postToFrame(page, { type: 'init', options: { ...GOOD_OPTIONS, features: null } });
    assert.equal(
      ((await waitForMessage(page, 'init_error')).error as { code: string }).code,
      'invalid_option',
    );
  });

  it('an update with a wrong type changes nothing; the next valid one applies', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await bareFrame(tenant);
    await postToFrame(page, { type: 'init', options: GOOD_OPTIONS });
    await waitForMessage(page, 'ready');
    await frame.locator('.summary').getByText('£10.00').first().waitFor();
    await postToFrame(page, { type: 'update', changes: { pure_amount: 5, appearance: 'neon' } });
    await postToFrame(page, { type: 'update', changes: { pure_amount: '20.00' } });
    await frame.locator('.summary').getByText('£20.00').first().waitFor();
    await frame.getByLabel('Card number').waitFor();
  });

  it('a fixed amount the form refuses is announced (role="alert")', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await bareFrame(tenant);
    // Below the limits: the form refuses it at Pay (a missing one is refused at init, see the SDK suite).
    await postToFrame(page, { type: 'init', options: { ...GOOD_OPTIONS, pure_amount: '0.50' } });
    await waitForMessage(page, 'ready');
    await fillCard(frame, VISA, CVC);
    await postToFrame(page, { type: 'pay', id: '1' });
    const result = await waitForMessage(page, 'pay_result');
    assert.equal((result.error as { code: string }).code, 'validation_error');
    assert.match(await frame.getByRole('alert').innerText(), /Enter an amount from £1\.00 to £100,000\.00/);
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });
});

describe('hosted page: rent context', () => {
  it('says which rent, when it is due and to whom, and each method’s fee on its option once any method has one', async () => {
    const tenant = await newTenant(env);
    const fees = {
      card: { percent: '1.45', fixed: '0.00' },
      alipay: { percent: '2.00', fixed: '0.20' },
    };
    await withFees(env, fees, {}, async () => {
      const { page, frame } = await open(tenant, { width: 375 });
      await frame
        .getByTestId('rent-headline')
        .filter({ hasText: 'March rent £1,200.00 due today' })
        .waitFor();
      await frame.getByText('Paid to Landlord Ltd').waitFor();
      const options = frame.locator('.methods label');
      await options.first().waitFor();
      assert.deepEqual(await options.allInnerTexts(), [
        'Apple Pay\nno fee',
        'Google Pay\nno fee',
        'Card\n+£17.40',
        'Alipay\n+£24.20',
        'WeChat Pay\nno fee',
        'UnionPay\nno fee',
      ]);
      await frame.getByLabel('Amount (£)').fill('100.00');
      await frame
        .locator('.methods label')
        .filter({ hasText: 'Card' })
        .filter({ hasText: '+£1.45' })
        .waitFor();
      await screenshot(page, 'page-rent-context-375px');
    });
  });
});

describe('hosted page: saved cards and focus', () => {
  it('after deleting a saved card focus moves to the saved cards, and to the card number once none is left', async () => {
    const tenant = await newTenant(env);
    const client = clientOf(env.t, tenant.token);
    for (const number of [VISA, '5555555555554444']) {
      const saved = await client.saveCard(await cardToken(env.t, number));
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    }
    const { page, frame } = await open(tenant);
    const focused = () =>
      frame.locator(':focus').evaluate((el) => `${el.tagName}:${el.id || el.textContent?.trim()}`);
    // Delete asks first; "Keep it" keeps the card and gives focus back to its Delete button.
    await frame.getByRole('button', { name: 'Delete Visa ending 4242' }).click();
    await frame.locator('p:focus').filter({ hasText: 'Delete Visa ending 4242?' }).waitFor();
    await screenshot(page, 'page-delete-confirm');
    await frame.getByRole('button', { name: 'Keep it' }).click();
    await frame
      .getByRole('button', { name: 'Delete Visa ending 4242' })
      .and(frame.locator(':focus'))
      .waitFor();
    assert.equal(await frame.getByRole('radio', { name: /Visa ending 4242/ }).count(), 1);
    assert.equal((await client.cards()).body.cards.length, 2, 'nothing was deleted');

    await frame.getByRole('button', { name: 'Delete Visa ending 4242' }).click();
    await frame.getByRole('button', { name: 'Delete card' }).click();
    await frame.getByRole('radio', { name: /Visa ending 4242/ }).waitFor({ state: 'detached' });
    await frame.locator('legend:focus').waitFor();
    assert.equal(await focused(), 'LEGEND:Saved cards');
    await frame.getByRole('button', { name: 'Delete Mastercard ending 4444' }).click();
    await frame.getByRole('button', { name: 'Delete card' }).click();
    await frame.locator('#card-number:focus').waitFor();
    await screenshot(page, 'page-saved-cards-deleted-focus');
  });
});
