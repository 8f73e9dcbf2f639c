/**
 * The moment of paying on the hosted page: the Pay button takes the click even when a field's check appears
 * as focus leaves it, says "Processing…" and locks the form while the payment is on its way, and after a
 * decline focus goes to the message. Nothing takes focus on load (it would scroll the integrator's page).
 * Real Chromium, the integrator's page on another site.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  CARD_FEES,
  chargesOf,
  effectsRun,
  fillCard,
  focused,
  newTenant,
  openInIntegratorPage,
  openSdkCheckout,
  pageEnvironmentPerFile,
  paymentFrame,
  sdkInit,
  type Tenant,
} from '../support/browser.ts';
import { cardToken, clientOf } from '../support/payment-client.ts';
import { createSchedule } from '../support/schedule-helpers.ts';

const file = pageEnvironmentPerFile({ fees: CARD_FEES });
const PAY = 'Pay £1,217.40';

async function hostedPage(tenant: Tenant): Promise<{ page: Page; frame: FrameLocator }> {
  const opened = await openInIntegratorPage(file.env, tenant);
  file.contexts.push(opened.context);
  await opened.frame.getByRole('button', { name: PAY }).waitFor();
  return opened;
}

describe('hosted page: paying', () => {
  it('on load nothing takes focus', async () => {
    const { page } = await hostedPage(await newTenant(file.env));
    // After the first render's effects, where a focus move would happen.
    await effectsRun(file.env, page);
    const inner = await paymentFrame(file.env, page);
    assert.equal(await inner.evaluate(() => document.activeElement?.tagName.toLowerCase()), 'body');
    assert.equal(await page.evaluate(() => window.scrollY), 0);
  });

  it('Pay takes the click while a field is focused (its check would appear as focus leaves it)', async () => {
    const tenant = await newTenant(file.env);
    const { frame } = await hostedPage(tenant);
    await frame.getByLabel('Card number').fill('4242 4242 4242 4241');
    await frame.getByLabel('Card number').focus();
    await frame.getByRole('button', { name: PAY }).click();
    // Only the submit's check of every field says this: the expiry field was never visited.
    await frame.getByText('Enter the expiry date.').waitFor();
    await frame.getByText('Enter the security code.').waitFor();
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), []);
  });

  it('while the payment is on its way the button says "Processing…" and the form is locked', async () => {
    const tenant = await newTenant(file.env);
    const { page, frame } = await hostedPage(tenant);
    await fillCard(frame, '4242424242424242', '737');
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived: (() => void) | undefined;
    const intercepted = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    await page.context().route('**/api/client/payments', async (route) => {
      arrived?.();
      await held;
      await route.continue();
    });
    await frame.getByRole('button', { name: PAY }).click();
    await intercepted;
    const processing = frame.getByRole('button', { name: 'Processing…' });
    await processing.waitFor();
    assert.equal(await processing.isDisabled(), true);
    assert.equal(await frame.getByLabel('Card number').isDisabled(), true);
    assert.equal(await frame.getByLabel('CVC').isDisabled(), true);
    release?.();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    assert.equal((await chargesOf(file.env, tenant.sessionId)).length, 1);
  });

  it('after a decline, focus goes to the message and the form is usable again', async () => {
    const tenant = await newTenant(file.env);
    const { frame } = await hostedPage(tenant);
    await fillCard(frame, '4000000000000002', '737');
    await frame.getByRole('button', { name: PAY }).click();
    await focused(frame.getByRole('alert').filter({ hasText: 'Your card was declined.' }));
    assert.equal(await frame.getByLabel('Card number').isDisabled(), false);
    await frame.getByRole('button', { name: PAY }).waitFor();
  });

  it('deleting a card that pays recurring rent says what to do, in the tenant’s words (no internal ids)', async () => {
    const tenant = await newTenant(file.env);
    const client = clientOf(file.env.t, tenant.token);
    const saved = await client.saveCard(await cardToken(file.env.t, '5555555555554444'));
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const schedule = await createSchedule({ client, cardId: saved.body.card_id });
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
    const opened = await openInIntegratorPage(file.env, tenant);
    file.contexts.push(opened.context);
    const { frame } = opened;
    await frame.getByRole('button', { name: /^Delete/ }).click();
    await frame.getByRole('button', { name: 'Delete card' }).click();
    const alert = frame.getByRole('alert');
    await alert.waitFor();
    assert.equal(
      await alert.innerText(),
      'This card pays your recurring rent, so it can’t be deleted yet. Cancel recurring rent first (in the Recurring rent tab), then delete the card.',
    );
    assert.doesNotMatch(await alert.innerText(), /sch_/);
    await focused(alert);
    assert.equal((await client.cards()).body.cards.length, 1, 'the card is still there');
  });

  it('switching Card → Alipay → Card keeps what the tenant typed', async () => {
    const tenant = await newTenant(file.env);
    const { frame } = await hostedPage(tenant);
    await fillCard(frame, '4242424242424242', '737', '12 / 30');
    await frame.getByRole('radio', { name: 'Alipay' }).check();
    assert.equal(await frame.getByLabel('Card number').isVisible(), false);
    await frame.getByRole('radio', { name: 'Card' }).check();
    assert.equal(await frame.getByLabel('Card number').inputValue(), '4242 4242 4242 4242');
    assert.equal(await frame.getByLabel('Expiry').inputValue(), '12 / 30');
    assert.equal(await frame.getByLabel('CVC').inputValue(), '737');
    await frame.getByRole('button', { name: PAY }).click();
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
  });

  it('night theme: the "Default" badge of a saved card is readable (contrast at least 4.5:1)', async () => {
    const tenant = await newTenant(file.env);
    const client = clientOf(file.env.t, tenant.token);
    assert.equal((await client.saveCard(await cardToken(file.env.t, '5555555555554444'))).status, 201);
    const { context, page } = await openSdkCheckout(file.env);
    file.contexts.push(context);
    assert.deepEqual(await sdkInit(file.env, page, tenant, { appearance: { theme: 'night' } }), { ok: true });
    const frame = page.frames().find((candidate) => candidate.url().includes('/third-party'));
    assert.ok(frame);
    await frame.locator('.badge').filter({ hasText: 'Default' }).waitFor();
    const ratio = await frame.evaluate(() => {
      const badge = [...document.querySelectorAll<HTMLElement>('.badge')].find(
        (b) => b.textContent === 'Default',
      )!;
      const style = getComputedStyle(badge);
      const luminance = (color: string) => {
        const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
          const c = Number(v) / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const [light, dark] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
      return (light! + 0.05) / (dark! + 0.05);
    });
    assert.ok(ratio >= 4.5, `contrast ${ratio.toFixed(2)}:1`);
  });
});
