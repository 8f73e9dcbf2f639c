/**
 * The hosted page's other ways to pay, in headless Chromium inside the integrator's frame: saved cards,
 * Alipay (popup), WeChat Pay (QR), UnionPay and a sandbox wallet. Outcomes of APMs reach the payment as
 * the sandbox provider's asynchronous notification, through the job worker.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  fillCard,
  newTenant,
  type OpenedPage,
  openInIntegratorPage,
  type PageEnvironment,
  paymentSucceeded,
  screenshot,
  startPageEnvironment,
  type Tenant,
} from '../support/browser.ts';

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const THREE_DS_FIRST = '4000000000003220';
const CVC = '737';

let env: PageEnvironment;
const opened: OpenedPage[] = [];

before(async () => {
  env = await startPageEnvironment({ fees: { alipay: { percent: '1.00', fixed: '0.00' } } });
});
after(async () => {
  for (const { context } of opened) await context.close();
  await env.close();
});

async function open(tenant: Pick<Tenant, 'token' | 'sessionId'>) {
  const result = await openInIntegratorPage(env, tenant);
  opened.push(result);
  return result;
}

/** A new session for the same tenant (a returning user). */
async function loginAgain(tenant: Tenant): Promise<Tenant> {
  const login = await env.api.loginOk(tenant.email);
  return { ...tenant, token: login.token, sessionId: login.session_id };
}

async function payments(sessionId: string) {
  return env.t.db.query<{
    id: string;
    status: string;
    method: string;
    card_last4: string | null;
    failure_code: string | null;
    amount_pence: number;
    fee_pence: number;
  }>(
    `SELECT id, status, method, card_last4, failure_code, amount_pence, fee_pence
       FROM payments WHERE session_id = $1 ORDER BY created_at`,
    [sessionId],
  );
}

async function events(paymentId: string): Promise<string[]> {
  const rows = await env.t.db.query<{ type: string }>(
    `SELECT type FROM events WHERE data->'payment'->>'payment_id' = $1 ORDER BY created_at`,
    [paymentId],
  );
  return rows.map((row) => row.type);
}

async function savedCards(tenant: Tenant) {
  return env.t.db.query<{ last4: string; status: string; is_default: boolean }>(
    `SELECT c.last4, c.status, c.is_default FROM saved_cards c JOIN users u ON u.id = c.user_id
      WHERE u.email = $1 ORDER BY c.last4`,
    [tenant.email],
  );
}

async function chooseMethod(frame: FrameLocator, name: string): Promise<void> {
  await frame.getByRole('radio', { name, exact: true }).check();
}

async function payAndSave(frame: FrameLocator, number: string): Promise<void> {
  await fillCard(frame, number, CVC);
  await frame.getByLabel('Save this card for future payments').check();
  await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
}

async function succeeded(frame: FrameLocator): Promise<void> {
  await paymentSucceeded(env, frame);
}

async function alertText(frame: FrameLocator): Promise<string> {
  const alert = frame.getByRole('alert');
  await alert.waitFor();
  return (await alert.innerText()).trim();
}

describe('hosted page: saved cards', () => {
  it('saves a card while paying, then pays with it in a later session without typing it', async () => {
    const tenant = await newTenant(env);
    const first = await open(tenant);
    await payAndSave(first.frame, VISA);
    await succeeded(first.frame);
    assert.deepEqual(await savedCards(tenant), [{ last4: '4242', status: 'active', is_default: true }]);

    const again = await loginAgain(tenant);
    const { page, frame } = await open(again);
    const saved = frame.getByRole('radio', { name: /Visa ending 4242/ });
    await saved.waitFor();
    assert.equal(await saved.isChecked(), true, 'the default card is chosen');
    assert.equal(await frame.getByLabel('Card number').count(), 0, 'no card form for a saved card');
    await screenshot(page, 'page-saved-card-choose');
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await succeeded(frame);
    const [payment] = await payments(again.sessionId);
    assert.equal(payment?.status, 'succeeded');
    assert.equal(payment?.card_last4, '4242');
  });

  it('a card that asks for 3DS is checked once when saved, and its next payment needs no challenge', async () => {
    const tenant = await newTenant(env);
    const first = await open(tenant);
    await payAndSave(first.frame, THREE_DS_FIRST);
    await first.frame.getByRole('heading', { name: 'Confirm it’s you' }).waitFor();
    await first.frame
      .frameLocator('iframe[title="3D Secure check"]')
      .getByRole('button', { name: 'Authorise' })
      .click();
    await succeeded(first.frame);
    assert.deepEqual(await savedCards(tenant), [{ last4: '3220', status: 'active', is_default: true }]);

    const again = await loginAgain(tenant);
    const { frame } = await open(again);
    await frame.getByRole('radio', { name: /Visa ending 3220/ }).waitFor();
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await succeeded(frame);
    assert.equal((await payments(again.sessionId))[0]?.status, 'succeeded');
  });

  it('makes another card the default and deletes one', async () => {
    const tenant = await newTenant(env);
    const first = await open(tenant);
    await payAndSave(first.frame, VISA);
    await succeeded(first.frame);
    const second = await open(await loginAgain(tenant));
    await second.frame.getByRole('radio', { name: 'Use a new card' }).check();
    await payAndSave(second.frame, MASTERCARD);
    await succeeded(second.frame);

    const { page, frame } = await open(await loginAgain(tenant));
    await frame.getByRole('radio', { name: /Visa ending 4242/ }).waitFor();
    await frame.getByRole('button', { name: 'Make default (Mastercard ending 4444)' }).click();
    await frame.getByRole('button', { name: 'Make default (Visa ending 4242)' }).waitFor();
    await frame.getByRole('button', { name: 'Delete Visa ending 4242' }).click();
    await frame.getByRole('button', { name: 'Delete card' }).click();
    await frame.getByRole('radio', { name: /Visa ending 4242/ }).waitFor({ state: 'detached' });
    await screenshot(page, 'page-saved-cards-managed');
    assert.deepEqual(await savedCards(tenant), [
      { last4: '4242', status: 'deleted', is_default: false },
      { last4: '4444', status: 'active', is_default: true },
    ]);
  });
});

describe('hosted page: alternative methods', () => {
  async function alipay(
    decision: 'Authorise' | 'Fail',
  ): Promise<{ page: Page; frame: FrameLocator; tenant: Tenant }> {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await chooseMethod(frame, 'Alipay');
    await frame.getByRole('button', { name: 'Pay £1,212.00' }).click();
    const popupOpened = page.context().waitForEvent('page');
    await frame.getByRole('button', { name: 'Continue to Alipay' }).click();
    const popup = await popupOpened;
    await popup.getByRole('heading', { name: /Alipay/ }).waitFor();
    await popup.getByRole('button', { name: decision }).click();
    return { page, frame, tenant };
  }

  it('Alipay’s window closed early: the page says so and opens it again; then it pays', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await chooseMethod(frame, 'Alipay');
    await frame.getByRole('button', { name: 'Pay £1,212.00' }).click();
    const first = page.context().waitForEvent('page');
    await frame.getByRole('button', { name: 'Continue to Alipay' }).click();
    const popup = await first;
    await popup.getByRole('heading', { name: /Alipay/ }).waitFor();
    await popup.close();
    await frame
      .getByText(
        'The Alipay window was closed before the payment was confirmed. Open it again to pay, or cancel.',
      )
      .waitFor();
    const second = page.context().waitForEvent('page');
    await frame.getByRole('button', { name: 'Open Alipay again' }).click();
    const again = await second;
    await again.getByRole('button', { name: 'Authorise' }).click();
    await succeeded(frame);
    const [payment] = await payments(tenant.sessionId);
    assert.equal(payment?.status, 'succeeded');
  });

  it('Alipay in a popup: Authorise pays (with the Alipay fee)', async () => {
    const { page, frame, tenant } = await alipay('Authorise');
    await succeeded(frame);
    await screenshot(page, 'page-alipay-authorised');
    const [payment] = await payments(tenant.sessionId);
    assert.equal(payment?.method, 'alipay');
    assert.equal(payment?.fee_pence, 1200);
    assert.equal(payment?.status, 'succeeded');
    assert.deepEqual(await events(payment!.id), ['payment_success']);
  });

  it('Alipay in a popup: Fail says so and charges nothing', async () => {
    const { page, frame, tenant } = await alipay('Fail');
    assert.equal(
      await alertText(frame),
      'The payment was declined by the payment provider. You have not been charged. Try again, or choose another way to pay.',
    );
    await screenshot(page, 'page-alipay-failed');
    const [payment] = await payments(tenant.sessionId);
    assert.equal(payment?.status, 'failed');
    assert.deepEqual(await events(payment!.id), ['payment_failed']);
  });

  for (const decision of ['Authorise', 'Fail'] as const) {
    it(`WeChat Pay shows a QR code; the scan page's ${decision} reaches the page`, async () => {
      const tenant = await newTenant(env);
      const { page, frame } = await open(tenant);
      await chooseMethod(frame, 'WeChat Pay');
      await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
      const qr = frame.getByRole('img', { name: 'QR code to pay with WeChat Pay' });
      await qr.waitFor();
      assert.ok(((await qr.boundingBox())?.width ?? 0) > 100, 'the QR code is drawn');
      await screenshot(page, 'page-wechat-qr');
      const popupOpened = page.context().waitForEvent('page');
      await frame.getByRole('button', { name: 'Open the WeChat Pay payment page instead' }).click();
      const scan = await popupOpened;
      await scan.getByRole('button', { name: decision }).click();
      const [payment] = await payments(tenant.sessionId);
      if (decision === 'Authorise') {
        await succeeded(frame);
      } else {
        assert.equal(
          await alertText(frame),
          'The payment was declined by the payment provider. You have not been charged. Try again, or choose another way to pay.',
        );
      }
      await screenshot(page, `page-wechat-${decision.toLowerCase()}`);
      const [final] = await payments(tenant.sessionId);
      assert.equal(final?.id, payment?.id);
      assert.equal(final?.method, 'wechat_pay');
      assert.equal(final?.status, decision === 'Authorise' ? 'succeeded' : 'failed');
    });
  }

  it('UnionPay in a popup: Authorise pays', async () => {
    const tenant = await newTenant(env);
    const { page, frame } = await open(tenant);
    await chooseMethod(frame, 'UnionPay');
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    const popupOpened = page.context().waitForEvent('page');
    await frame.getByRole('button', { name: 'Continue to UnionPay' }).click();
    await (await popupOpened).getByRole('button', { name: 'Authorise' }).click();
    await succeeded(frame);
    assert.equal((await payments(tenant.sessionId))[0]?.method, 'unionpay');
  });

  it('Cancel on the provider step withdraws the payment', async () => {
    const tenant = await newTenant(env);
    const { frame } = await open(tenant);
    await chooseMethod(frame, 'UnionPay');
    await frame.getByRole('button', { name: 'Pay £1,200.00' }).click();
    await frame.getByRole('button', { name: 'Continue to UnionPay' }).waitFor();
    await frame.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await alertText(frame), 'The payment was cancelled. You have not been charged.');
    assert.equal((await payments(tenant.sessionId))[0]?.status, 'canceled');
  });
});

describe('hosted page: wallets', () => {
  for (const [wallet, decision] of [
    ['Apple Pay', 'Authorise'],
    ['Google Pay', 'Fail'],
  ] as const) {
    it(`${wallet} through the sandbox sheet: ${decision}`, async () => {
      const tenant = await newTenant(env);
      const { page, frame } = await open(tenant);
      await chooseMethod(frame, wallet);
      const button = frame.getByRole('button', { name: `Pay £1,200.00 with ${wallet}` });
      // The wallet's colours, as its brand asks: white on black.
      assert.deepEqual(
        await button.evaluate((element) => {
          const style = getComputedStyle(element);
          return [style.backgroundColor, style.color];
        }),
        ['rgb(0, 0, 0)', 'rgb(255, 255, 255)'],
      );
      await button.click();
      const sheet = frame.frameLocator(`iframe[title="${wallet} sheet"]`);
      await sheet.getByRole('heading', { name: new RegExp(wallet) }).waitFor();
      await screenshot(page, `page-wallet-sheet-${wallet.replace(' ', '-').toLowerCase()}`);
      await sheet.getByRole('button', { name: decision }).click();
      if (decision === 'Authorise') await succeeded(frame);
      else
        assert.equal(
          await alertText(frame),
          'Your card was declined. You have not been charged. Try another card, or ask your bank why it was declined.',
        );
      const [payment] = await payments(tenant.sessionId);
      assert.equal(payment?.method, wallet === 'Apple Pay' ? 'apple_pay' : 'google_pay');
      assert.equal(payment?.status, decision === 'Authorise' ? 'succeeded' : 'failed');
    });
  }
});
