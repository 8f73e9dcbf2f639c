/**
 * The client SDK in headless Chromium, loaded by an integrator's page on another site than the service:
 * UMD and ES module, every init mistake, pay() with its outcomes, wallets without pay(), expiry, destroy,
 * two copies, appearance, and that the integrator's page can read no card data.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import {
  fillCard,
  focused,
  newTenant,
  openSdkCheckout,
  type PageEnvironment,
  screenshot,
  sdkEvents,
  sdkInit,
  sdkPay,
  startPageEnvironment,
  type Tenant,
} from '../support/browser.ts';
import { cardToken, clientOf } from '../support/payment-client.ts';

const VISA = '4242424242424242';
const DECLINED = '4000000000000002';
const THREE_DS_FIRST = '4000000000003220';
const CVC = '737';

let env: PageEnvironment;
const contexts: BrowserContext[] = [];

before(async () => {
  env = await startPageEnvironment();
});
after(async () => {
  for (const context of contexts) await context.close();
  await env.close();
});

/** The integrator's checkout page with the SDK loaded as `load` (umd, esm or both). */
async function checkout(load: 'umd' | 'esm' | 'both' = 'umd', origin = env.integratorOrigin): Promise<Page> {
  const { context, page } = await openSdkCheckout(env, load, origin);
  contexts.push(context);
  return page;
}

const form = (page: Page): FrameLocator => page.frameLocator('#pay iframe');

/** SVC.init in the integrator's page with these options (plus the service, token, container, sandbox). */
const init = (
  page: Page,
  tenant: Pick<Tenant, 'token'>,
  options: Record<string, unknown> = {},
  global: 'SVC' | 'SVCModule' = 'SVC',
) => sdkInit(env, page, tenant, options, global);
const startPay = sdkPay;
const events = sdkEvents;

async function paymentsOf(sessionId: string) {
  return env.t.db.query<{ status: string; pure_amount_pence: number; reference: string; method: string }>(
    'SELECT status, pure_amount_pence, reference, method FROM payments WHERE session_id = $1 ORDER BY created_at',
    [sessionId],
  );
}

describe('SDK: loading', () => {
  it('UMD: the global SVC inits, renders the form in our iframe and pays via pay(); onSuccess gets the Payment', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    assert.equal(await page.evaluate(() => typeof (window as unknown as { SVC: unknown }).SVC), 'object');
    assert.deepEqual(await init(page, tenant, { reference: 'INV-42' }), { ok: true });
    const src = await page.locator('#pay iframe').getAttribute('src');
    assert.ok(src?.startsWith(`${env.baseUrl}/third-party?sdk=1`), src ?? '');
    await fillCard(form(page), VISA, CVC);
    const result = await startPay(page);
    assert.equal(result.ok, true, JSON.stringify(result.value));
    assert.equal(result.value.status, 'succeeded');
    assert.equal(result.value.pure_amount, '1200.00');
    assert.equal(result.value.reference, 'INV-42');
    const fired = await events(page);
    assert.deepEqual(
      fired.map((event) => event.type),
      ['onSuccess'],
    );
    assert.equal(
      (fired[0]?.payment as { payment_id?: string } | undefined)?.payment_id,
      result.value.payment_id,
    );
    await screenshot(page, 'sdk-umd-success');
    const [row] = await paymentsOf(tenant.sessionId);
    assert.equal(row?.status, 'succeeded');
    assert.equal(row?.reference, 'INV-42');
  });

  it('ES module: the default export inits and pays; the reference defaults to SVC_<timestamp>', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('esm');
    assert.deepEqual(await init(page, tenant, {}, 'SVCModule'), { ok: true });
    await fillCard(form(page), VISA, CVC);
    const result = await page.evaluate(() =>
      (
        window as unknown as { SVCModule: { pay(): Promise<{ status: string; reference: string }> } }
      ).SVCModule.pay(),
    );
    assert.equal(result.status, 'succeeded');
    assert.match(result.reference, /^SVC_\d{13}$/);
    // The tenant's receipt shows their rent's reference, not the one generated for the platform's books.
    await form(page).getByRole('heading', { name: 'Payment successful' }).waitFor();
    const summary = await form(page).locator('.summary').innerText();
    assert.match(summary, new RegExp(`Reference\\s+${tenant.paymentReference}`));
    assert.doesNotMatch(summary, /SVC_/);
  });

  it('two copies on one page: the second warns and is the same instance', async () => {
    const page = await checkout('both');
    const same = await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      return w.SVC === w.SVCModule;
    });
    assert.equal(same, true);
    const warnings = await page.evaluate(() => (window as unknown as { warnings: string[] }).warnings);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /loaded more than once/);
  });
});

describe('SDK: init validation', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['no apiBaseUrl', { apiBaseUrl: undefined }, 'invalid_option', /apiBaseUrl is required/],
    [
      'a trailing slash',
      { apiBaseUrl: 'http://127.0.0.1:1/' },
      'invalid_option',
      /must not end with a slash/,
    ],
    ['a relative apiBaseUrl', { apiBaseUrl: 'pay.example' }, 'invalid_option', /absolute URL/],
    ['no authToken', { authToken: '' }, 'invalid_option', /authToken is required/],
    ['no container', { container: undefined }, 'invalid_option', /container must be/],
    ['a container that is not there', { container: '#nowhere' }, 'container_not_found', /#nowhere/],
    ['a broken selector', { container: '#' }, 'invalid_option', /not a valid CSS selector/],
    ['an amount as a string', { pure_amount: '10.50' }, 'invalid_option', /pure_amount must be a number/],
    ['three decimals', { pure_amount: 10.505 }, 'invalid_option', /two decimals/],
    ['under the minimum', { pure_amount: 0.5 }, 'invalid_option', /from 1 to 100000/],
    ['isAmountEditable not boolean', { isAmountEditable: 'yes' }, 'invalid_option', /isAmountEditable/],
    ['an unknown environment', { environment: 'staging' }, 'invalid_option', /environment must be/],
    ['an unknown feature', { features: { crypto: true } }, 'invalid_option', /features\.crypto/],
    ['a feature not boolean', { features: { apms: 1 } }, 'invalid_option', /features\.apms must be/],
    ['an unknown theme', { appearance: { theme: 'neon' } }, 'invalid_option', /appearance\.theme/],
    ['an unknown variable', { appearance: { variables: { colour: 'red' } } }, 'invalid_option', /colour/],
    ['onSuccess not a function', { onSuccess: 'yes' }, 'invalid_option', /onSuccess must be a function/],
    ['an unknown option', { amount: 5 }, 'invalid_option', /amount is not an option/],
  ];
  for (const [name, options, code, message] of cases) {
    it(`rejects ${name} with ${code}, adding nothing to the page`, async () => {
      const page = await checkout('umd');
      const result = await init(page, { token: 'rp_ust_unused' }, options);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.error.code, code);
        assert.match(result.error.message, message);
      }
      assert.equal(await page.locator('iframe').count(), 0);
    });
  }

  it('an expired token rejects with session_expired and leaves no iframe', async () => {
    const tenant = await newTenant(env);
    env.t.clock.advance(16 * 60_000);
    const page = await checkout('umd');
    const result = await init(page, tenant);
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error.code, 'session_expired');
    assert.equal(await page.locator('iframe').count(), 0);
  });

  it('a token no session has rejects with session_expired from the form (not a load timeout) and leaves no iframe', async () => {
    const page = await checkout('umd');
    const result = await init(page, { token: 'rp_ust_neverIssuedByUs' });
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error.code, 'session_expired', result.error.message);
    assert.equal(await page.locator('iframe').count(), 0);
  });

  it('environment "production" (the default) against a sandbox service rejects with environment_mismatch', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    const result = await init(page, tenant, { environment: undefined });
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.code, 'environment_mismatch');
      assert.match(result.error.message, /sandbox/);
    }
  });

  it('init twice rejects; destroy removes the form, and init again works', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    assert.deepEqual(await init(page, tenant), { ok: true });
    const again = await init(page, tenant);
    assert.equal(again.ok, false);
    if (!again.ok) assert.equal(again.error.code, 'already_initialized');
    await page.evaluate(() => (window as unknown as { SVC: { destroy(): void } }).SVC.destroy());
    assert.equal(await page.locator('iframe').count(), 0);
    const notReady = await startPay(page);
    assert.equal(notReady.ok, false);
    assert.equal(notReady.value.code, 'not_initialized');
    assert.deepEqual(await init(page, tenant), { ok: true });
    await fillCard(form(page), VISA, CVC);
    assert.equal((await startPay(page)).value.status, 'succeeded');
  });
});

describe('SDK: paying', () => {
  it('an editable amount starts empty and pays what the tenant typed', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    assert.deepEqual(await init(page, tenant, { pure_amount: undefined, isAmountEditable: true }), {
      ok: true,
    });
    const amount = form(page).getByLabel('Amount (£)');
    assert.equal(await amount.inputValue(), '');
    await amount.fill('950.00');
    await fillCard(form(page), VISA, CVC);
    const result = await startPay(page);
    assert.equal(result.value.pure_amount, '950.00');
    assert.equal((await paymentsOf(tenant.sessionId))[0]?.pure_amount_pence, 95_000);
  });

  it('a fixed amount shows no amount field', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant, { pure_amount: 10.5 });
    await form(page).getByLabel('Card number').waitFor();
    assert.equal(await form(page).getByLabel('Amount (£)').count(), 0);
    assert.match(await form(page).locator('.summary').innerText(), /10\.50/);
  });

  it('a decline rejects pay() with payment_failed and its decline_code; onError fires', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await fillCard(form(page), DECLINED, CVC);
    const result = await startPay(page);
    assert.equal(result.ok, false);
    assert.equal(result.value.code, 'payment_failed');
    assert.equal(result.value.decline_code, 'card_declined');
    assert.equal(result.value.message, 'Your card was declined.');
    assert.match(String(result.value.payment_id), /^pay_/);
    const fired = await events(page);
    assert.deepEqual(
      fired.map((event) => event.type),
      ['onError'],
    );
    await screenshot(page, 'sdk-decline');
  });

  it('an invalid card form rejects pay() with validation_error and sends nothing', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await fillCard(form(page), '4242424242424241', CVC);
    const result = await startPay(page);
    assert.equal(result.value.code, 'validation_error');
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });

  it('3DS during pay(): the challenge shows in the form and pay() resolves after Authorise', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await fillCard(form(page), THREE_DS_FIRST, CVC);
    const paying = startPay(page);
    await form(page)
      .frameLocator('iframe[title="3D Secure check"]')
      .getByRole('button', { name: 'Authorise' })
      .click();
    const result = await paying;
    assert.equal(result.value.status, 'succeeded');
    await screenshot(page, 'sdk-3ds-authorised');
  });

  it('a wallet pays from its own button without pay(); onSuccess and the success event fire', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      w.SVC.on('success', (payment: unknown) => w.events.push({ type: 'success', payment }));
    });
    await form(page).getByRole('radio', { name: 'Google Pay' }).check();
    await form(page).getByRole('button', { name: 'Pay £1,200.00 with Google Pay' }).click();
    await form(page)
      .frameLocator('iframe[title="Google Pay sheet"]')
      .getByRole('button', { name: 'Authorise' })
      .click();
    await page.waitForFunction(() => (window as unknown as { events: unknown[] }).events.length === 2);
    const fired = await events(page);
    assert.deepEqual(fired.map((event) => event.type).sort(), ['onSuccess', 'success']);
    assert.equal((await paymentsOf(tenant.sessionId))[0]?.method, 'google_pay');
  });

  it('features hide methods and saved cards; on/off and change events follow the form', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      w.onChange = (change: unknown) => w.events.push({ type: 'change', change });
      w.SVC.on('change', w.onChange);
    });
    await init(page, tenant, { features: { apms: false, wallets: false, savedCards: false } });
    await form(page).getByLabel('Card number').waitFor();
    assert.equal(await form(page).getByRole('radio', { name: 'Alipay' }).count(), 0);
    assert.equal(await form(page).getByRole('radio', { name: 'Apple Pay' }).count(), 0);
    assert.equal(await form(page).getByLabel('Save this card for future payments').count(), 0);
    await page.waitForFunction(() =>
      (window as unknown as { events: { type: string }[] }).events.some((e) => e.type === 'change'),
    );
    const change = (await events(page)).find((event) => event.type === 'change')?.change;
    assert.deepEqual(change, { method: 'card', pure_amount: '1200.00', fee: '0.00', amount: '1200.00' });
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      w.SVC.off('change', w.onChange);
      w.events.length = 0;
      w.SVC.update({ pure_amount: 99.99 });
    });
    await form(page).locator('.summary').getByText('£99.99').first().waitFor();
    assert.deepEqual(await events(page), [], 'off() removed the listener');
  });
});

describe('SDK: appearance and isolation', () => {
  it('appearance variables and theme reach the form’s computed style', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant, {
      appearance: {
        theme: 'night',
        variables: { colorPrimary: '#ff0000', fontFamily: 'monospace', borderRadius: '0px' },
      },
    });
    const frame = page.frameLocator('#pay iframe');
    const style = await frame.locator('.method.selected').evaluate((el) => {
      const computed = getComputedStyle(el);
      return {
        border: computed.borderTopColor,
        radius: computed.borderTopLeftRadius,
        font: getComputedStyle(document.body).fontFamily,
        background: getComputedStyle(document.documentElement).backgroundColor,
      };
    });
    assert.equal(style.border, 'rgb(255, 0, 0)');
    assert.equal(style.radius, '0px');
    assert.equal(style.font, 'monospace');
    assert.equal(style.background, 'rgb(31, 32, 35)', 'the night theme');
    await screenshot(page, 'sdk-appearance-night');
  });

  it('the integrator’s page can read no card data: not in its DOM, and the form’s document is out of reach', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await fillCard(form(page), VISA, CVC);
    const seen = await page.evaluate(() => {
      const frame = document.querySelector('#pay iframe') as HTMLIFrameElement;
      let reachable = true;
      try {
        reachable = frame.contentDocument !== null && frame.contentDocument.body !== null;
      } catch {
        reachable = false;
      }
      return { html: document.documentElement.outerHTML, reachable };
    });
    assert.equal(seen.reachable, false);
    assert.ok(
      !seen.html.includes(VISA) && !seen.html.includes('4242 4242'),
      'the card number is not in the page',
    );
  });

  it('a site the integrator did not allow cannot host the form: init fails and nothing is charged', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd', env.strangerOrigin);
    const response = await fetch(
      `${env.baseUrl}/third-party?sdk=1&origin=${encodeURIComponent(env.strangerOrigin)}&token=${tenant.token}`,
    );
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    const framed = page.waitForEvent('framenavigated', { predicate: (frame) => frame !== page.mainFrame() });
    // init waits for a frame that never answers; the context closes before its load timeout.
    init(page, tenant).catch(() => undefined);
    await framed;
    assert.equal(await page.frameLocator('#pay iframe').locator('#app').count(), 0);
  });
});

describe('SDK: lifecycle edges', () => {
  it('destroy() while init is pending rejects init with destroyed', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    const result = await page.evaluate(
      async ({ base, token }) => {
        // biome-ignore lint/suspicious/noExplicitAny: the page's globals
        const w = window as any;
        const starting = w.SVC.init({
          apiBaseUrl: base,
          authToken: token,
          container: '#pay',
          environment: 'sandbox',
          pure_amount: 10,
        });
        w.SVC.destroy();
        // A guard only: before the fix the promise never settled at all.
        const guard = new Promise((resolve) => setTimeout(() => resolve({ code: 'still pending' }), 10_000));
        return Promise.race([
          starting.then(
            () => ({ code: 'resolved' }),
            (error: unknown) => error,
          ),
          guard,
        ]);
      },
      { base: env.baseUrl, token: tenant.token },
    );
    assert.equal((result as { code: string }).code, 'destroyed');
    assert.equal(await page.locator('iframe').count(), 0);
  });

  it('update() before the form loaded is not lost: the form starts with the updated amount', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    const result = await page.evaluate(
      async ({ base, token }) => {
        // biome-ignore lint/suspicious/noExplicitAny: the page's globals
        const w = window as any;
        const starting = w.SVC.init({
          apiBaseUrl: base,
          authToken: token,
          container: '#pay',
          environment: 'sandbox',
          pure_amount: 1200,
        });
        w.SVC.update({ pure_amount: 99.99, reference: 'EARLY-1' });
        await starting;
        return 'ok';
      },
      { base: env.baseUrl, token: tenant.token },
    );
    assert.equal(result, 'ok');
    await form(page).locator('.summary').getByText('£99.99').first().waitFor();
    await fillCard(form(page), VISA, CVC);
    const paid = await startPay(page);
    assert.equal(paid.value.pure_amount, '99.99');
    assert.equal(paid.value.reference, 'EARLY-1');
  });

  it('a throwing onSuccess or onError does not stop the success and error events', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    const ok = await page.evaluate(
      async ({ base, token }) => {
        // biome-ignore lint/suspicious/noExplicitAny: the page's globals
        const w = window as any;
        w.SVC.on('success', () => w.events.push({ type: 'success' }));
        w.SVC.on('error', (error: { code: string }) => w.events.push({ type: 'error', code: error.code }));
        await w.SVC.init({
          apiBaseUrl: base,
          authToken: token,
          container: '#pay',
          environment: 'sandbox',
          pure_amount: 1200,
          onSuccess: () => {
            throw new Error('integrator bug (success)');
          },
          onError: () => {
            throw new Error('integrator bug (error)');
          },
        });
        return true;
      },
      { base: env.baseUrl, token: tenant.token },
    );
    assert.equal(ok, true);
    await fillCard(form(page), DECLINED, CVC);
    assert.equal((await startPay(page)).value.code, 'payment_failed');
    // The decline's alert takes the focus in an effect: typing before it moves could lose the text.
    await focused(form(page).getByRole('alert').filter({ hasText: 'declined' }));
    await fillCard(form(page), VISA, CVC);
    assert.equal((await startPay(page)).value.status, 'succeeded');
    await page.waitForFunction(() => (window as unknown as { events: unknown[] }).events.length === 2);
    assert.deepEqual(
      (await events(page)).map((event) => event.type),
      ['error', 'success'],
    );
  });
});

/** A saved Mastercard ending 4444 for the tenant, through the Client API. */
async function saveMastercard(tenant: Pick<Tenant, 'token'>): Promise<void> {
  const saved = await clientOf(env.t, tenant.token).saveCard(await cardToken(env.t, '5555555555554444'));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
}

/** Records the SDK's error events in window.events as {type: 'error', code}. */
async function recordErrors(page: Page): Promise<void> {
  await page.evaluate(() => {
    // biome-ignore lint/suspicious/noExplicitAny: the page's globals
    const w = window as any;
    w.SVC.on('error', (error: { code: string }) => w.events.push({ type: 'error', code: error.code }));
  });
}

async function waitForErrorEvent(page: Page, code: string): Promise<void> {
  await page.waitForFunction(
    (code) =>
      (window as unknown as { events: { type: string; code?: string }[] }).events.some(
        (event) => event.type === 'error' && event.code === code,
      ),
    code,
  );
}

describe('SDK: saved cards, recurring rent and expiry', () => {
  it('Cancel on the 3DS check of a card being saved rejects pay() with payment_canceled', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await fillCard(form(page), THREE_DS_FIRST, CVC);
    await form(page).getByLabel('Save this card for future payments').check();
    const paying = startPay(page);
    await form(page).getByRole('heading', { name: 'Confirm it’s you' }).waitFor();
    await form(page).getByRole('button', { name: 'Cancel' }).click();
    const result = await paying;
    assert.equal(result.ok, false);
    assert.equal(result.value.code, 'payment_canceled', JSON.stringify(result.value));
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });

  it('a card that fails its 3DS check when saved rejects pay() with payment_failed', async () => {
    const tenant = await newTenant(env);
    const page = await checkout('umd');
    await init(page, tenant);
    await fillCard(form(page), THREE_DS_FIRST, CVC);
    await form(page).getByLabel('Save this card for future payments').check();
    const paying = startPay(page);
    await form(page)
      .frameLocator('iframe[title="3D Secure check"]')
      .getByRole('button', { name: 'Fail' })
      .click();
    const result = await paying;
    assert.equal(result.value.code, 'payment_failed', JSON.stringify(result.value));
    assert.match(String(result.value.message), /could not be verified/);
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });

  it('pay() while the Recurring rent view shows rejects with validation_error and charges nothing', async () => {
    const tenant = await newTenant(env);
    await saveMastercard(tenant);
    const page = await checkout('umd');
    await init(page, tenant);
    await form(page).getByRole('radio', { name: 'Use a new card' }).check();
    await fillCard(form(page), VISA, CVC);
    await form(page).getByRole('tab', { name: 'Recurring rent' }).click();
    await form(page).getByRole('button', { name: 'Review recurring rent' }).waitFor();
    const result = await startPay(page);
    assert.equal(result.ok, false);
    assert.equal(result.value.code, 'validation_error');
    assert.match(String(result.value.message), /Pay now/);
    assert.equal((await paymentsOf(tenant.sessionId)).length, 0);
  });

  it('a session that lapsed, met by deleting a saved card, says session_expired to the SDK', async () => {
    const tenant = await newTenant(env);
    await saveMastercard(tenant);
    const page = await checkout('umd');
    await init(page, tenant);
    await recordErrors(page);
    env.t.clock.advance(31 * 60_000);
    await form(page).getByRole('button', { name: 'Delete Mastercard ending 4444' }).click();
    await form(page).getByRole('button', { name: 'Delete card' }).click();
    await form(page).getByRole('heading', { name: 'Session expired' }).waitFor();
    await waitForErrorEvent(page, 'session_expired');
    assert.equal(
      (await events(page)).filter((event) => event.type === 'onError').length,
      1,
      'onError fired once',
    );
  });

  it('a session that lapsed, met by the Recurring rent view, says session_expired to the SDK', async () => {
    const tenant = await newTenant(env);
    await saveMastercard(tenant);
    const page = await checkout('umd');
    await init(page, tenant);
    await recordErrors(page);
    env.t.clock.advance(31 * 60_000);
    await form(page).getByRole('tab', { name: 'Recurring rent' }).click();
    await form(page).getByRole('heading', { name: 'Session expired' }).waitFor();
    await waitForErrorEvent(page, 'session_expired');
  });
});
