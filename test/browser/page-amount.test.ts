/**
 * The amount on the hosted page: the platform's server fixes it at user-login and the page can only show it;
 * the total the tenant saw is the total charged (amount_changed); a suspended integrator and the card-testing
 * and request limits are shown, not crashed on. Real Chromium, the integrator's page on another site.
 * The SDK's side of the same: sdk-amount.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  CARD_FEES,
  chargesOf,
  fillCard,
  newTenant,
  openInIntegratorPage,
  pageEnvironmentPerFile,
  RAISED_CARD_FEES,
  screenshot,
  type Tenant,
  whileSuspended,
  withFees,
} from '../support/browser.ts';
import {
  clientOf,
  declineUntilBlocked,
  exhaustRequestLimit,
  requestsAllowedAgain,
} from '../support/payment-client.ts';

const VISA = '4242424242424242';
const CVC = '737';
const file = pageEnvironmentPerFile({ fees: CARD_FEES });

async function hostedPage(tenant: Tenant): Promise<{ page: Page; frame: FrameLocator }> {
  const opened = await openInIntegratorPage(file.env, tenant);
  file.contexts.push(opened.context);
  return opened;
}

describe('hosted page: the amount the platform set', () => {
  it('a fixed amount is shown read-only and is exactly what is paid', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00' });
    const { page, frame } = await hostedPage(tenant);
    const fixed = frame.getByTestId('fixed-amount');
    await fixed.waitFor();
    assert.match((await fixed.innerText()) ?? '', /^Amount\s+£950\.00\s+set by your platform$/);
    assert.equal(await frame.getByRole('textbox', { name: /Amount/ }).count(), 0, 'no amount field');
    assert.equal(await frame.locator('#amount').count(), 0);
    // 950.00 + 1.45 % = 963.78
    await fillCard(frame, VISA, CVC);
    await frame.getByRole('button', { name: 'Pay £963.78' }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await screenshot(page, 'page-fixed-amount');
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '95000', amount_pence: '96378' },
    ]);
  });

  it('a pre-filled amount (amount_editable) starts the field and can be changed', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00', amount_editable: true });
    const { frame } = await hostedPage(tenant);
    const input = frame.getByLabel('Amount (£)');
    assert.equal(await input.inputValue(), '950.00');
    assert.equal(await frame.getByTestId('fixed-amount').count(), 0);
    await input.fill('10.00');
    await fillCard(frame, VISA, CVC);
    await frame.getByRole('button', { name: 'Pay £10.15' }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '1000', amount_pence: '1015' },
    ]);
  });

  it('the amount may be typed the British way, "£1,250.50", and the totals read "£1,268.63"', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00', amount_editable: true });
    const { frame } = await hostedPage(tenant);
    await frame.getByLabel('Amount (£)').fill('£1,250.50');
    // 1,250.50 + 1.45 % (18.13) = 1,268.63
    assert.match(
      await frame.locator('dl.totals').innerText(),
      /Rent\s+£1,250\.50\s+Fee\s+£18\.13\s+Total\s+£1,268\.63/,
    );
    await fillCard(frame, VISA, CVC);
    await frame.getByRole('button', { name: 'Pay £1,268.63' }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.match(await frame.getByText(/^You paid/).innerText(), /You paid £1,268\.63 to/);
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '125050', amount_pence: '126863' },
    ]);
  });

  it('an open session starts at the tenancy rent, editable, as before', async () => {
    const tenant = await newTenant(file.env, '875.00');
    const { frame } = await hostedPage(tenant);
    assert.equal(await frame.getByLabel('Amount (£)').inputValue(), '875.00');
  });
});

describe('hosted page: the total the tenant saw is the total charged', () => {
  it('a fee changed after the page loaded: the tenant is told the new total, then pays it, charged once', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '1200.00' });
    const { page, frame } = await hostedPage(tenant);
    await frame.getByRole('button', { name: 'Pay £1,217.40' }).waitFor();
    await fillCard(frame, VISA, CVC);
    await withFees(file.env, RAISED_CARD_FEES, CARD_FEES, async () => {
      await frame.getByRole('button', { name: 'Pay £1,217.40' }).click();
      const alert = frame.getByRole('alert').filter({ hasText: 'The total has changed' });
      await alert.waitFor();
      assert.equal(
        await alert.innerText(),
        'The total has changed to £1,224.20 (fee £24.20). You have not been charged. Check the new total and pay again.',
      );
      assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [], 'nothing charged at the old total');
      assert.match(await frame.locator('dl.totals').innerText(), /Fee\s+£24\.20\s+Total\s+£1,224\.20/);
      await screenshot(page, 'page-amount-changed');
      await frame.getByRole('button', { name: 'Pay £1,224.20' }).click();
      await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    });
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '120000', amount_pence: '122420' },
    ]);
  });
});

describe('hosted page: when payments cannot be made', () => {
  it('a suspended integrator: the page says payments are unavailable instead of showing the form', async () => {
    const tenant = await newTenant(file.env);
    await whileSuspended(file.env, async () => {
      const { page, frame } = await hostedPage(tenant);
      await frame.getByRole('heading', { name: 'Payments unavailable' }).waitFor();
      assert.match(await frame.locator('.panel').innerText(), /Payments are unavailable right now/);
      assert.equal(await frame.getByLabel('Card number').count(), 0);
      assert.equal(await frame.getByRole('heading', { name: 'Session expired' }).count(), 0);
      await screenshot(page, 'page-integrator-suspended');
    });
  });

  it('suspended while the tenant is on the page: Pay shows payments are unavailable, nothing is charged', async () => {
    const tenant = await newTenant(file.env);
    const { frame } = await hostedPage(tenant);
    await fillCard(frame, VISA, CVC);
    await whileSuspended(file.env, async () => {
      await frame.getByRole('button', { name: /^Pay £/ }).click();
      await frame.getByRole('heading', { name: 'Payments unavailable' }).waitFor();
    });
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), []);
  });

  it('too many declined cards: the page says so and nothing more is charged', async () => {
    const tenant = await newTenant(file.env);
    assert.equal(await declineUntilBlocked(file.env.t, clientOf(file.env.t, tenant.token)), 5);
    const { page, frame } = await hostedPage(tenant);
    await fillCard(frame, VISA, CVC);
    await frame.getByRole('button', { name: /^Pay £/ }).click();
    const alert = frame.getByRole('alert').filter({ hasText: 'Too many declined cards' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /You have not been charged\. Please try again later\./);
    await screenshot(page, 'page-too-many-attempts');
    assert.equal((await chargesOf(file.env, tenant.sessionId)).length, 5);
    // The form is still there for later.
    await frame.getByRole('button', { name: /^Pay £/ }).waitFor();
  });
});

describe('hosted page: the request limit', () => {
  // The limiter reads the app's fake clock, which stands still until the test moves it: the window the test uses
  // up stays open while the page pays, whatever the machine's speed.
  const WINDOW = { burst: 40, windowMs: 2_000 };
  const limited = pageEnvironmentPerFile({ fees: CARD_FEES }, { config: { clientRateLimit: WINDOW } });

  it('too many requests at once (rate_limited): the page asks to wait and try again; then it pays', async () => {
    const tenant = await newTenant(limited.env);
    const { page, frame, context } = await openInIntegratorPage(limited.env, tenant);
    limited.contexts.push(context);
    await fillCard(frame, VISA, CVC);
    // The page's payment leaves right after the session's request limit is used up.
    let usedUp: ((attempt: Promise<void>) => void) | undefined;
    const exhausted = new Promise<void>((resolve) => {
      usedUp = resolve;
    });
    await page.context().route('**/api/client/payments', async (route) => {
      if (usedUp) {
        const attempt = exhaustRequestLimit(clientOf(limited.env.t, tenant.token), WINDOW);
        usedUp(attempt);
        usedUp = undefined;
        await attempt.catch(() => undefined);
      }
      await route.continue();
    });
    await frame.getByRole('button', { name: /^Pay £/ }).click();
    const alert = frame.getByRole('alert').filter({ hasText: 'Too many attempts in a short time' });
    await Promise.all([alert.waitFor(), exhausted]);
    assert.equal(
      await alert.innerText(),
      'Too many attempts in a short time. You have not been charged. Please wait a moment and try again.',
    );
    assert.deepEqual(await chargesOf(limited.env, tenant.sessionId), []);
    // Once the limit's window has passed, the same form (card still filled in) pays.
    await requestsAllowedAgain(limited.env.t, clientOf(limited.env.t, tenant.token), WINDOW);
    await frame.getByRole('button', { name: /^Pay £/ }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.equal((await chargesOf(limited.env, tenant.sessionId)).length, 1);
  });
});
