/**
 * The amount in the SDK: the platform's server fixes it at user-login and SVC.init / SVC.update can only narrow
 * it (amount_mismatch, without onError); pay() rejects with amount_changed and a quote when the total changed;
 * integrator_suspended from init; too_many_attempts from pay(). Real Chromium, the integrator's checkout page on
 * another site. The hosted page's side of the same: page-amount.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  CARD_FEES,
  chargesOf,
  fillCard,
  newTenant,
  openSdkCheckout,
  pageEnvironmentPerFile,
  RAISED_CARD_FEES,
  screenshot,
  sdkEvents,
  sdkInit,
  sdkPay,
  whileSuspended,
  withFees,
} from '../support/browser.ts';
import { clientOf, declineUntilBlocked } from '../support/payment-client.ts';

const VISA = '4242424242424242';
const CVC = '737';
const file = pageEnvironmentPerFile({ fees: CARD_FEES });

async function checkout(): Promise<Page> {
  const { context, page } = await openSdkCheckout(file.env, 'umd');
  file.contexts.push(context);
  return page;
}

const form = (page: Page): FrameLocator => page.frameLocator('#pay iframe');

/** SVC.update in the integrator's page: what it threw, if anything. */
function update(page: Page, changes: Record<string, unknown>) {
  return page.evaluate((sent) => {
    try {
      (window as unknown as { SVC: { update(c: unknown): void } }).SVC.update(sent);
      return { ok: true as const };
    } catch (error) {
      return { ok: false as const, error: error as { code: string; message: string; pure_amount?: string } };
    }
  }, changes);
}

function destroy(page: Page): Promise<void> {
  return page.evaluate(() => (window as unknown as { SVC: { destroy(): void } }).SVC.destroy());
}

describe('SDK: a session whose amount the platform fixed', () => {
  it('another pure_amount rejects init with amount_mismatch and the session’s amount, without onError', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00' });
    const page = await checkout();
    const result = await sdkInit(file.env, page, tenant, { pure_amount: 950.01 });
    assert.deepEqual(result, {
      ok: false,
      error: {
        code: 'amount_mismatch',
        message:
          'The amount of this session is fixed at 950.00 by the platform; pure_amount 950.01 does not match it.',
        pure_amount: '950.00',
      },
    });
    assert.deepEqual(await sdkEvents(page), [], 'onError is not called');
    assert.equal(await page.locator('#pay iframe').count(), 0, 'no form left behind');
  });

  it('isAmountEditable: true rejects init with amount_mismatch, without onError', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00' });
    const page = await checkout();
    const result = await sdkInit(file.env, page, tenant, { pure_amount: 950, isAmountEditable: true });
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.code, 'amount_mismatch');
      assert.equal(result.error.pure_amount, '950.00');
      assert.match(result.error.message, /isAmountEditable cannot be true/);
    }
    assert.deepEqual(await sdkEvents(page), []);
    assert.equal(await page.locator('#pay iframe').count(), 0);
  });

  it('an omitted pure_amount is the session’s amount, shown read-only and paid', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00' });
    const page = await checkout();
    assert.deepEqual(await sdkInit(file.env, page, tenant, { pure_amount: undefined }), { ok: true });
    assert.match(await form(page).getByTestId('fixed-amount').innerText(), /£950\.00/);
    assert.equal(await form(page).locator('#amount').count(), 0);
    await fillCard(form(page), VISA, CVC);
    const paid = await sdkPay(page);
    assert.equal(paid.ok, true, JSON.stringify(paid.value));
    assert.equal(paid.value.pure_amount, '950.00');
    assert.equal(paid.value.amount, '963.78');
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '95000', amount_pence: '96378' },
    ]);
  });

  it('update() to another amount throws amount_mismatch and changes nothing; the same amount in pence is fine', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00' });
    const page = await checkout();
    assert.deepEqual(await sdkInit(file.env, page, tenant, { pure_amount: 950 }), { ok: true });
    const refused = await update(page, { pure_amount: 1 });
    assert.equal(refused.ok, false);
    if (!refused.ok) {
      assert.equal(refused.error.code, 'amount_mismatch');
      assert.equal(refused.error.pure_amount, '950.00');
      assert.match(refused.error.message, /fixed at 950\.00/);
    }
    assert.deepEqual(await update(page, { pure_amount: 950.0 }), { ok: true });
    // A later update that goes through still shows the fixed amount: the refused one was never sent.
    assert.deepEqual(await update(page, { reference: 'After the refusal' }), { ok: true });
    assert.match(await form(page).getByTestId('fixed-amount').innerText(), /£950\.00/);
    assert.deepEqual(await sdkEvents(page), [], 'onError is not called');
    await fillCard(form(page), VISA, CVC);
    const paid = await sdkPay(page);
    assert.equal(paid.ok, true, JSON.stringify(paid.value));
    assert.equal(paid.value.amount, '963.78');
    assert.equal(paid.value.reference, 'After the refusal');
  });
});

describe('SDK: sessions whose amount is open or only pre-filled', () => {
  it('an open session still needs pure_amount or isAmountEditable: invalid_option, nothing left in the page', async () => {
    const tenant = await newTenant(file.env);
    const page = await checkout();
    const result = await sdkInit(file.env, page, tenant, { pure_amount: undefined });
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.code, 'invalid_option');
      assert.match(result.error.message, /pure_amount is required/);
    }
    assert.equal(await page.locator('#pay iframe').count(), 0);
  });

  it('an open session takes any pure_amount, as before', async () => {
    const tenant = await newTenant(file.env);
    const page = await checkout();
    assert.deepEqual(await sdkInit(file.env, page, tenant, { pure_amount: 321.5 }), { ok: true });
    assert.deepEqual(await update(page, { pure_amount: 400 }), { ok: true });
    await form(page).getByTestId('fixed-amount').filter({ hasText: '£400.00' }).waitFor();
  });

  it('a pre-filled session: an omitted pure_amount pre-fills the session’s amount, editable with isAmountEditable', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '950.00', amount_editable: true });
    const page = await checkout();
    assert.deepEqual(await sdkInit(file.env, page, tenant, { pure_amount: undefined }), { ok: true });
    assert.match(await form(page).getByTestId('fixed-amount').innerText(), /£950\.00/);
    await destroy(page);
    assert.deepEqual(
      await sdkInit(file.env, page, tenant, { pure_amount: undefined, isAmountEditable: true }),
      {
        ok: true,
      },
    );
    const input = form(page).getByLabel('Amount (£)');
    assert.equal(await input.inputValue(), '950.00');
    await input.fill('20.00');
    await fillCard(form(page), VISA, CVC);
    const paid = await sdkPay(page);
    assert.equal(paid.ok, true, JSON.stringify(paid.value));
    assert.equal(paid.value.pure_amount, '20.00');
  });
});

describe('SDK: pay() and init() refused by the service', () => {
  it('pay() rejects with amount_changed and the quote after a fee change; the form shows it; paying again charges once', async () => {
    const tenant = await newTenant(file.env, '1200.00', { pure_amount: '1200.00' });
    const page = await checkout();
    assert.deepEqual(await sdkInit(file.env, page, tenant, { pure_amount: 1200 }), { ok: true });
    await fillCard(form(page), VISA, CVC);
    await withFees(file.env, RAISED_CARD_FEES, CARD_FEES, async () => {
      const changed = await sdkPay(page);
      assert.equal(changed.ok, false);
      assert.equal(changed.value.code, 'amount_changed');
      assert.deepEqual(changed.value.quote, { pure_amount: '1200.00', fee: '24.20', amount: '1224.20' });
      await form(page).getByRole('alert').filter({ hasText: 'The total has changed to £1,224.20' }).waitFor();
      assert.match(await form(page).locator('dl.totals').innerText(), /Total\s+£1,224\.20/);
      await screenshot(page, 'sdk-amount-changed');
      assert.deepEqual(await chargesOf(file.env, tenant.sessionId), []);
      const paid = await sdkPay(page);
      assert.equal(paid.ok, true, JSON.stringify(paid.value));
      assert.equal(paid.value.amount, '1224.20');
    });
    assert.deepEqual(await chargesOf(file.env, tenant.sessionId), [
      { status: 'succeeded', pure_amount_pence: '120000', amount_pence: '122420' },
    ]);
  });

  it('a suspended integrator rejects init with integrator_suspended and leaves no form', async () => {
    const tenant = await newTenant(file.env);
    await whileSuspended(file.env, async () => {
      const page = await checkout();
      const result = await sdkInit(file.env, page, tenant);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.error.code, 'integrator_suspended');
        assert.match(result.error.message, /Payments are unavailable/);
      }
      assert.equal(await page.locator('#pay iframe').count(), 0);
    });
  });

  it('too many declined cards: pay() rejects with too_many_attempts and the form says so', async () => {
    const tenant = await newTenant(file.env);
    await declineUntilBlocked(file.env.t, clientOf(file.env.t, tenant.token));
    const page = await checkout();
    assert.deepEqual(await sdkInit(file.env, page, tenant), { ok: true });
    await fillCard(form(page), VISA, CVC);
    const refused = await sdkPay(page);
    assert.equal(refused.ok, false);
    assert.equal(refused.value.code, 'too_many_attempts');
    await form(page).getByRole('alert').filter({ hasText: 'Too many declined cards' }).waitFor();
    assert.equal((await chargesOf(file.env, tenant.sessionId)).length, 5);
  });
});
