/**
 * The tenant's page in every state it reaches, at a desktop site's 600 px frame and on a 375 px phone, in the
 * light theme and the system's dark mode: axe-core finds no WCAG 2.0–2.2 A or AA violation in any of them. Real
 * Chromium, the page framed by the integrator's site; the browser's clock is Playwright's fake one for expiry.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import {
  CARD_FEES,
  effectsRun,
  fillCard,
  newTenant,
  openInIntegratorPage,
  pageEnvironmentPerFile,
  paymentFrame,
  screenshot,
  type Tenant,
  whileSuspended,
} from '../support/browser.ts';
import { cardToken, clientOf } from '../support/payment-client.ts';

const VISA = '4242424242424242';
const DECLINED = '4000000000000002';
const THREE_DS = '4000000000003220';

const file = pageEnvironmentPerFile({
  fees: { ...CARD_FEES, apple_pay: { percent: '1.00', fixed: '0.00' } },
});

interface Look {
  width: number;
  colorScheme: 'light' | 'dark';
}

/** Each violation in the page's frame now, as "state: rule (nodes)". */
async function violations(page: Page, state: string): Promise<string[]> {
  const inner = await paymentFrame(file.env, page);
  return axeViolations(inner, state);
}

async function open(tenant: Pick<Tenant, 'token' | 'sessionId'>, look: Look, fakeClock = false) {
  const opened = await openInIntegratorPage(file.env, tenant, { ...look, fakeClock });
  file.contexts.push(opened.context);
  return opened;
}

async function alert(frame: FrameLocator, text: string) {
  await frame.getByRole('alert').filter({ hasText: text }).waitFor();
}

/**
 * Waits until the focused element in the payment page's frame ("role or tag: text") matches `expected`: focus
 * moves in an effect after the render that shows the element. Fails with what has focus instead.
 */
async function assertFocus(page: Page, expected: RegExp): Promise<void> {
  const inner = await paymentFrame(file.env, page);
  const describe = () =>
    inner.evaluate(() => {
      const element = document.activeElement;
      return `${element?.getAttribute('role') ?? element?.tagName.toLowerCase()}: ${element?.textContent?.trim()}`;
    });
  try {
    await inner.waitForFunction((source) => {
      const element = document.activeElement;
      const seen = `${element?.getAttribute('role') ?? element?.tagName.toLowerCase()}: ${element?.textContent?.trim()}`;
      return new RegExp(source).test(seen);
    }, expected.source);
  } catch {
    assert.fail(`focus is on "${await describe()}", not ${expected}`);
  }
}

/** The Pay form, a card's delete question, field errors, a decline, each method's step, recurring rent, 3DS, receipts. */
async function payingStates(look: Look): Promise<string[]> {
  const found: string[] = [];
  const tenant = await newTenant(file.env);
  const client = clientOf(file.env.t, tenant.token);
  assert.equal((await client.saveCard(await cardToken(file.env.t, VISA))).status, 201);
  const { page, frame } = await open(tenant, look);
  await frame.getByRole('button', { name: 'Pay £1,217.40' }).waitFor();
  assert.equal(
    await (await paymentFrame(file.env, page)).evaluate(() => document.documentElement.dataset.theme),
    look.colorScheme === 'dark' ? 'night' : 'default',
  );
  // Loading never moves focus, so the integrator's page is not scrolled to the frame.
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  assert.equal(await frame.locator('#fee-card').innerText(), '+£17.40');
  found.push(...(await violations(page, 'Pay form with a saved card and method fees')));
  // The check itself finds a fault: a faint line added for a moment fails colour contrast.
  const inner = await paymentFrame(file.env, page);
  await inner.evaluate(() => {
    const faint = document.createElement('p');
    faint.id = 'faint';
    faint.textContent = 'A faint line';
    faint.style.color = '#808080';
    faint.style.background = '#8c8c8c';
    document.querySelector('main')?.append(faint);
  });
  assert.match((await violations(page, 'control')).join(), /color-contrast/);
  await inner.evaluate(() => document.getElementById('faint')?.remove());

  await frame.getByRole('button', { name: 'Delete Visa ending 4242' }).click();
  await frame.getByText('Delete Visa ending 4242?').waitFor();
  found.push(...(await violations(page, 'delete question')));
  await frame.getByRole('button', { name: 'Keep it' }).click();

  await frame.getByRole('radio', { name: 'Use a new card' }).check();
  await frame.getByRole('button', { name: 'Pay £1,217.40' }).click();
  await frame.getByText('Enter your card number.').waitFor();
  found.push(...(await violations(page, 'field errors')));

  await fillCard(frame, DECLINED, '737');
  await frame.getByText('VISA', { exact: true }).waitFor();
  const shot = `${look.width}px-${look.colorScheme}`;
  await screenshot(page, `page-card-brand-${shot}`);
  await frame.getByRole('button', { name: 'Pay £1,217.40' }).click();
  await alert(frame, 'Your card was declined.');
  await assertFocus(page, /^alert: Your card was declined\. You have not been charged\./);
  found.push(...(await violations(page, 'declined, with the brand mark')));

  await frame.getByRole('radio', { name: 'Apple Pay' }).check();
  await screenshot(page, `page-wallet-button-${shot}`);
  await frame.getByRole('button', { name: 'Pay £1,212.00 with Apple Pay' }).click();
  await frame
    .frameLocator('iframe[title="Apple Pay sheet"]')
    .getByRole('button', { name: 'Authorise' })
    .waitFor();
  await assertFocus(page, /^h2: /);
  found.push(...(await violations(page, 'wallet sheet')));
  await frame.getByRole('button', { name: 'Cancel' }).click();

  await frame.getByRole('radio', { name: 'Alipay' }).check();
  await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
  await frame.getByRole('button', { name: 'Continue to Alipay' }).waitFor();
  found.push(...(await violations(page, 'Alipay step')));
  await frame.getByRole('button', { name: 'Cancel' }).click();
  await alert(frame, 'The payment was cancelled.');
  found.push(...(await violations(page, 'cancelled')));

  await frame.getByRole('tab', { name: 'Recurring rent' }).click();
  await frame.getByRole('button', { name: 'Review recurring rent' }).click();
  await frame.getByRole('heading', { name: 'Check and authorise' }).waitFor();
  await assertFocus(page, /^h\d: Check and authorise/);
  await frame.getByText('£1,217.40', { exact: false }).first().waitFor();
  found.push(...(await violations(page, 'recurring rent review')));
  await frame.getByRole('tab', { name: 'Pay now' }).click();

  await frame.getByRole('radio', { name: 'Card', exact: true }).check();
  // Other methods, another tab and back: the card typed earlier is still there.
  assert.equal(await frame.getByLabel('Card number').inputValue(), '4000 0000 0000 0002');
  await fillCard(frame, THREE_DS, '737');
  await frame.getByRole('button', { name: 'Pay £1,217.40' }).click();
  const challenge = frame.frameLocator('iframe[title="3D Secure check"]');
  await challenge.getByRole('button', { name: 'Authorise' }).waitFor();
  await assertFocus(page, /^h2: Confirm it’s you$/);
  // The challenge fits its window: nothing to scroll inside it.
  const challengeFrame = (await paymentFrame(file.env, page)).childFrames()[0];
  assert.ok(challengeFrame, 'the challenge frame');
  const fit = await challengeFrame.evaluate(() => ({
    scroll: document.documentElement.scrollHeight,
    view: window.innerHeight,
  }));
  assert.ok(fit.scroll <= fit.view, `the challenge fits (${fit.scroll} > ${fit.view} px)`);
  found.push(...(await violations(page, '3DS step')));
  await challenge.getByRole('button', { name: 'Authorise' }).click();
  await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
  found.push(...(await violations(page, 'payment successful')));

  const again = await open(tenant, look);
  await again.frame.getByRole('heading', { name: 'Rent paid' }).waitFor();
  found.push(...(await violations(again.page, 'receipt of a paid session')));
  return found;
}

/** The warning a minute before the session ends, the session timed out, a stale link, payments unavailable. */
async function endingStates(look: Look): Promise<string[]> {
  const found: string[] = [];
  const timed = await open(await newTenant(file.env), look, true);
  await timed.frame.getByRole('button', { name: 'Pay £1,217.40' }).waitFor();
  await effectsRun(file.env, timed.page);
  await timed.page.clock.fastForward('14:01');
  await alert(timed.frame, 'Your session ends in about a minute.');
  found.push(...(await violations(timed.page, 'expiry warning')));
  await timed.page.clock.fastForward('01:00');
  await timed.frame.getByText('you have not been charged').waitFor();
  found.push(...(await violations(timed.page, 'session timed out')));

  // A link whose session id is not its token's: the page treats it as stale.
  const stale = await open({ token: (await newTenant(file.env)).token, sessionId: 'ses_unknown' }, look);
  await stale.frame.getByText('This payment link has expired or is not valid.').waitFor();
  found.push(...(await violations(stale.page, 'stale link')));

  const tenant = await newTenant(file.env);
  await whileSuspended(file.env, async () => {
    const unavailable = await open(tenant, look);
    await unavailable.frame.getByRole('heading', { name: 'Payments unavailable' }).waitFor();
    found.push(...(await violations(unavailable.page, 'payments unavailable')));
  });
  return found;
}

const LOOKS: Look[] = [
  { width: 600, colorScheme: 'light' },
  { width: 600, colorScheme: 'dark' },
  { width: 375, colorScheme: 'light' },
  { width: 375, colorScheme: 'dark' },
];

describe('hosted page: WCAG 2.2 A/AA in every state', () => {
  for (const look of LOOKS) {
    const name = `${look.width} px, ${look.colorScheme === 'dark' ? 'system dark mode' : 'light'}`;
    it(`${name}: paying, each method's step, recurring rent, 3DS and the receipts`, async () => {
      assert.deepEqual(await payingStates(look), []);
    });
    it(`${name}: expiry warning, timed out, a stale link, payments unavailable`, async () => {
      assert.deepEqual(await endingStates(look), []);
    });
  }
});
