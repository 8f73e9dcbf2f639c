/**
 * The hosted page tells tenants the truth about their money, in real Chromium (the server's clock is 1 March 2026):
 * in arrears it says what is owed and suggests it, and an amount says which rent it pays (oldest first); paid ahead
 * it says so and suggests nothing; recurring rent starts after what is paid and never takes a one-off amount;
 * cancelling asks first; the tabs, the processing announcement, focus, and keeping signed in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  CARD_FEES,
  effectsRun,
  fillCard,
  newTenant,
  openInIntegratorPage,
  pageEnvironmentPerFile,
  paymentSucceeded,
  screenshot,
  type Tenant,
} from '../support/browser.ts';
import { cardToken, clientOf, PAN } from '../support/payment-client.ts';

const file = pageEnvironmentPerFile({ fees: CARD_FEES });
const WIDTHS = [320, 375, 1280] as const;

async function open(
  tenant: Tenant,
  options: { width?: number; colorScheme?: 'light' | 'dark'; fakeClock?: boolean } = {},
): Promise<{ page: Page; frame: FrameLocator }> {
  const opened = await openInIntegratorPage(file.env, tenant, options);
  file.contexts.push(opened.context);
  return opened;
}

/** Pays `pureAmount` through the Client API (as another visit to the page would have). */
async function paid(tenant: Tenant, pureAmount: string): Promise<void> {
  const answer = await clientOf(file.env.t, tenant.token).pay({
    pure_amount: pureAmount,
    card_token: await cardToken(file.env.t, PAN.visa),
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
}

async function again(tenant: Tenant, login: Record<string, unknown> = {}): Promise<Tenant> {
  const answer = await file.env.api.login({ email: tenant.email, ...login });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { ...tenant, token: answer.body.token, sessionId: answer.body.session_id };
}

const headline = (frame: FrameLocator) => frame.getByTestId('rent-headline');

describe('hosted page: what the tenant owes, and what an amount pays', () => {
  it('M1 in arrears since November: "You owe", the overdue total suggested, and £1,200 says it pays November', async () => {
    // Rent of £1,200 on the 15th since 15 November 2025: four months overdue on 1 March.
    const tenant = await newTenant(
      file.env,
      '1200.00',
      {},
      { start_rent_date: '2025-11-01', rent_due_day: 15 },
    );
    for (const width of WIDTHS) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page, frame } = await open(tenant, { width, colorScheme });
        await headline(frame).filter({ hasText: 'You owe £4,800.00' }).waitFor();
        assert.match(await headline(frame).innerText(), /4 months overdue, oldest 15 November/);
        assert.equal(await frame.getByLabel('Amount (£)').inputValue(), '4800.00');
        assert.ok(await frame.getByRole('radio', { name: /Overdue £4,800\.00/ }).isChecked());
        await frame.getByRole('radio', { name: /Overdue and March £6,000\.00/ }).waitFor();
        await frame
          .getByTestId('amount-pays')
          .filter({ hasText: 'Pays November 2025, December 2025, January and February rent' })
          .waitFor();
        await screenshot(page, `rent-truth-arrears-${width}-${colorScheme}`);
        await page.close();
      }
    }
    const { page, frame } = await open(tenant, { width: 375 });
    await frame.getByRole('radio', { name: 'Other amount' }).check();
    assert.equal(await frame.getByLabel('Amount (£)').evaluate((el) => el === document.activeElement), true);
    await frame.getByLabel('Amount (£)').fill('1200.00');
    await frame.getByTestId('amount-pays').filter({ hasText: 'Pays November 2025 rent' }).waitFor();
    await fillCard(frame, PAN.visa, '737');
    await frame.getByRole('button', { name: 'Pay £1,217.40' }).click();
    await paymentSucceeded(file.env, frame);
    // The page reads the session again once paid, for what the payment paid and what is still owed.
    await frame.getByText('Still owed').waitFor();
    const receipt = await frame.locator('.result').innerText();
    assert.match(receipt, /November 2025/, 'the receipt says what it paid');
    assert.match(receipt, /£3,600\.00/, 'and what is still owed');
    await screenshot(page, 'rent-truth-arrears-paid');
  });

  it('a fixed amount says what it pays: £2,400 of a catch-up pays November and December', async () => {
    const tenant = await newTenant(
      file.env,
      '1200.00',
      { pure_amount: '2400.00' },
      { start_rent_date: '2025-11-01', rent_due_day: 15 },
    );
    const { frame } = await open(tenant, { width: 320 });
    await frame.getByTestId('fixed-amount').waitFor();
    assert.equal(
      await frame.getByTestId('amount-pays').innerText(),
      'Pays November 2025 and December 2025 rent',
    );
  });

  it('M2 paid ahead: "April rent is paid", the next rent, and no amount suggested (paying early is a choice)', async () => {
    const tenant = await newTenant(file.env, '950.00');
    await paid(tenant, '1900.00');
    const next = await again(tenant);
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, frame } = await open(next, { width: 375, colorScheme });
      await headline(frame).filter({ hasText: 'April rent is paid (1 Mar)' }).waitFor();
      assert.match(await headline(frame).innerText(), /Next rent £950\.00 on 1 May/);
      assert.equal(await frame.getByLabel('Amount (£)').inputValue(), '');
      assert.equal(
        await frame.getByRole('button', { name: /^Pay £/ }).count(),
        0,
        'no amount to pay by default',
      );
      assert.equal(await frame.getByRole('radio', { name: /May rent, early £950\.00/ }).isChecked(), false);
      await screenshot(page, `rent-truth-paid-ahead-${colorScheme}`);
    }
    const { frame } = await open(next, { width: 320 });
    await frame.getByRole('radio', { name: /May rent, early/ }).check();
    await frame.getByRole('button', { name: 'Pay £963.78' }).waitFor();
    await frame.getByTestId('amount-pays').filter({ hasText: 'Pays May rent' }).waitFor();
  });

  it('up to date: the rent due today, suggested', async () => {
    const tenant = await newTenant(file.env, '950.00');
    const { frame } = await open(tenant, { width: 1280 });
    await headline(frame).filter({ hasText: 'March rent £950.00 due today' }).waitFor();
    assert.equal(await frame.getByLabel('Amount (£)').inputValue(), '950.00');
    await frame.getByRole('button', { name: 'Pay £963.78' }).waitFor();
  });
});

/** A saved card for the tenant (recurring rent charges one). */
async function saveCard(tenant: Tenant): Promise<void> {
  const saved = await clientOf(file.env.t, tenant.token).saveCard(await cardToken(file.env.t, PAN.visa));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
}

describe('hosted page: recurring rent and the money already paid', () => {
  it('M3 set up right after paying March: "March rent is paid — first automatic payment 1 April"', async () => {
    const tenant = await newTenant(file.env, '1200.00');
    await saveCard(tenant);
    await paid(tenant, '1200.00');
    const { page, frame } = await open(await again(tenant), { width: 375 });
    await frame.getByRole('tab', { name: 'Recurring rent' }).click();
    await frame.getByRole('button', { name: 'Review recurring rent' }).click();
    await frame
      .getByTestId('paid-through')
      .filter({ hasText: 'March rent is paid — first automatic payment 1 April.' })
      .waitFor();
    assert.match(await frame.locator('.review').innerText(), /1 April 2026, 1 May 2026/);
    assert.doesNotMatch(await frame.locator('.review').innerText(), /1 March 2026/);
    await screenshot(page, 'rent-truth-recurring-after-paying');
  });

  it('M4 a one-off fixed £4,800: recurring rent is the rent (£1,200 + fee a month), never the one-off amount', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '4800.00' });
    await saveCard(tenant);
    const { frame } = await open(tenant, { width: 375 });
    await frame.getByRole('tab', { name: 'Recurring rent' }).click();
    const amount = frame.getByLabel('Amount each time (£)');
    assert.equal(await amount.inputValue(), '1200.00');
    assert.equal(await amount.getAttribute('readonly'), '');
    await frame.getByText(/The £4,800\.00 your platform set is for this one payment only/).waitFor();
    await frame.getByRole('button', { name: 'Review recurring rent' }).click();
    const review = await frame.locator('.review').innerText();
    assert.match(review, /£1,217\.40 \(£1,200\.00 rent \+ £17\.40 card fee\)/);
    assert.doesNotMatch(review, /4,8/);
  });

  it('the tabs: a tablist, arrow keys move between them, the panel is labelled by its tab', async () => {
    const tenant = await newTenant(file.env, '1200.00');
    await saveCard(tenant);
    const { frame } = await open(tenant, { width: 320 });
    const pay = frame.getByRole('tab', { name: 'Pay now' });
    await pay.waitFor();
    assert.equal(await pay.getAttribute('aria-selected'), 'true');
    await frame.getByRole('tabpanel', { name: 'Pay now' }).waitFor();
    await pay.focus();
    await pay.press('ArrowRight');
    const recurring = frame.getByRole('tab', { name: 'Recurring rent' });
    assert.equal(await recurring.getAttribute('aria-selected'), 'true');
    assert.equal(await recurring.evaluate((el) => el === document.activeElement), true);
    await frame.getByRole('tabpanel', { name: 'Recurring rent' }).waitFor();
  });
});

describe('hosted page: while paying, and the session’s time', () => {
  it('"Processing your payment…" is announced and focus stays on the Pay button', async () => {
    const tenant = await newTenant(file.env, '1200.00');
    const { page, frame } = await open(tenant, { width: 375 });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/client/payments', async (route) => {
      await held;
      await route.continue();
    });
    await fillCard(frame, PAN.visa, '737');
    const button = frame.getByRole('button', { name: 'Pay £1,217.40' });
    await button.focus();
    await button.press('Enter');
    await frame.getByRole('status').filter({ hasText: 'Processing your payment…' }).waitFor();
    assert.equal(await frame.locator('button.pay').evaluate((el) => el === document.activeElement), true);
    assert.equal(await frame.locator('button.pay').getAttribute('aria-disabled'), 'true');
    release();
    await paymentSucceeded(file.env, frame);
  });

  it('a minute before the session ends: "Keep me signed in" extends it, until the session cannot go on', async () => {
    const tenant = await newTenant(file.env, '1200.00');
    const { page, frame } = await open(tenant, { width: 375, fakeClock: true });
    await headline(frame).waitFor();
    await effectsRun(file.env, page);
    const minutes = async (n: number) => {
      file.env.t.clock.advance(n * 60_000);
      await page.clock.fastForward(n * 60_000);
    };
    await minutes(14.1);
    const keep = frame.getByRole('button', { name: 'Keep me signed in' });
    // The button goes as the answer renders; the timers of the new expiry are armed by that render's effects, which
    // must run before the clock moves (the second answer removes the button before its effects run).
    await keep.click();
    await keep.waitFor({ state: 'detached' });
    await effectsRun(file.env, page);
    await minutes(14.1);
    await keep.click();
    await keep.waitFor({ state: 'detached' });
    await effectsRun(file.env, page);
    // The session ends 30 minutes after login: about 1.8 minutes are left, and no more can be added.
    await minutes(1);
    await frame.getByRole('alert').filter({ hasText: 'cannot be extended further' }).waitFor();
    await minutes(1);
    await frame.getByRole('heading', { name: 'Session expired' }).waitFor();
  });

  it('expired in the platform’s iframe: the platform hears of it, and Start again asks it for a new session there', async () => {
    const tenant = await newTenant(file.env, '1200.00');
    const { page, frame } = await open(tenant, { width: 375, fakeClock: true });
    await headline(frame).waitFor();
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { rentpaySeen: string[] }).rentpaySeen = seen;
      window.addEventListener('message', (event) => {
        if (event.data?.source === 'rentpay' && event.data.type !== 'resize') seen.push(event.data.type);
      });
    });
    const seen = () => page.evaluate(() => (window as unknown as { rentpaySeen: string[] }).rentpaySeen);
    await effectsRun(file.env, page);
    file.env.t.clock.advance(15 * 60_000);
    await page.clock.fastForward(15 * 60_000);
    await frame.getByRole('heading', { name: 'Session expired' }).waitFor();
    await page.waitForFunction(() =>
      (window as unknown as { rentpaySeen: string[] }).rentpaySeen.includes('session_expired'),
    );
    await frame.getByRole('button', { name: 'Start again' }).click();
    await page.waitForFunction(() =>
      (window as unknown as { rentpaySeen: string[] }).rentpaySeen.includes('restart'),
    );
    assert.deepEqual(await seen(), ['session_expired', 'restart']);
    await frame.getByRole('status').filter({ hasText: 'Starting a new session…' }).waitFor();
    // What the platform's listener does (docs/iframe.md): a new user-login, and the frame's src set to it.
    const fresh = await again(tenant);
    await page.evaluate(
      (src) => document.querySelector<HTMLIFrameElement>('#rentpay')!.setAttribute('src', src),
      `${file.env.baseUrl}/third-party?token=${fresh.token}&session_id=${fresh.sessionId}`,
    );
    await headline(frame).filter({ hasText: 'March rent £1,200.00 due today' }).waitFor();
  });
});
