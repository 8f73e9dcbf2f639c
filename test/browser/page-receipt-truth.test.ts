/**
 * What the tenant's receipt and a payment still being processed say, in real Chromium, framed by the integrator's
 * site at 280, 320, 375 and 1280 px, light and dark: every value of the receipt whole (nothing clipped or cut
 * short, long ids wrapping), the rent, the fee and the total on their own lines with whom and when; a payment
 * still `processing` after the page's deadline shows a panel with no form to pay again, and the page moves on
 * when the payment ends. The browser's clock is Playwright's fake one; the payment is held `processing` by
 * answering the page's requests with that status until the test lets the real answer through.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import { axeViolations } from '../support/axe.ts';
import {
  fillCard,
  openInIntegratorPage,
  openSdkCheckout,
  pageEnvironmentPerFile,
  paymentFrame,
  screenshot,
  sdkEvents,
  sdkInit,
  sdkPay,
  type Tenant,
} from '../support/browser.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';

// 13:05 UTC is 14:05 in London (summer time): the receipt shows UK time.
const file = pageEnvironmentPerFile(
  { fees: { card: { percent: '0.00', fixed: '13.50' } } },
  { clock: new FakeClock('2026-07-27T13:05:00.000Z') },
);
const PAID_AT = '27 July 2026, 14:05';
const PAY = 'Pay £963.50';
const VISA = '4242424242424242';
const DECLINED = '4000000000000002';
// As long as the service takes (50 characters), with nowhere to break: it must wrap, not be clipped.
const LONG_REFERENCE = 'TEN-3002-2026-ROSEBERY-AVENUE-FLAT-4B-000123456789';
const PAYEE = 'Rosebery Avenue Residential Lettings Management Ltd';

interface Look {
  width: number;
  colorScheme: 'light' | 'dark';
}

let nextUser = 5001;

/** A tenant paying £950.00 of rent to PAYEE, with the longest payment reference the service takes. */
async function receiptTenant(): Promise<Tenant> {
  const userId = nextUser++;
  const email = `truth${userId}@example.com`;
  const paymentReference = `${LONG_REFERENCE.slice(0, 50 - String(userId).length)}${userId}`;
  await file.env.api.onboardOk(
    userBody({
      user_id: userId,
      email,
      tenant: [
        tenancyBody({
          payment_reference: paymentReference,
          amount: '950.00',
          recipient_bank_account_name: PAYEE,
        }),
      ],
    }),
  );
  // The platform fixes the amount: the page's own suggestion (what is owed) is not what these tests are about.
  const answer = await file.env.api.login({ email, pure_amount: '950.00' });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { token: answer.body.token, sessionId: answer.body.session_id, email, userId, paymentReference };
}

/** As open(), the page reading its session with what the payment paid and what is owed (withRentPosition). */
async function openWithRentPosition(tenant: Tenant, look: Look) {
  const opened = await open(tenant, look);
  // The route is in place once the page has loaded: loaded again, it reads its session through it.
  await withRentPosition(opened.context);
  await opened.page.reload();
  await opened.page.addStyleTag({ content: FRAME_STYLE });
  return opened;
}

const FRAME_STYLE = 'body { margin: 0 } #rentpay { height: 1400px }';

/** The page framed at exactly `look.width` (the integrator's page without its body margin). */
async function open(tenant: Tenant, look: Look, fakeClock = false) {
  const opened = await openInIntegratorPage(file.env, tenant, { ...look, fakeClock });
  file.contexts.push(opened.context);
  await opened.page.addStyleTag({ content: FRAME_STYLE });
  return opened;
}

/** Each violation of WCAG 2.x A/AA axe finds in the payment frame now, as "state: rule (nodes)". */
async function violations(page: Page, state: string): Promise<string[]> {
  const inner = await paymentFrame(file.env, page);
  return axeViolations(inner, state);
}

/** The label and value rows shown (the receipt's or the pending panel's), as "label: value". */
async function rows(frame: FrameLocator): Promise<Record<string, string>> {
  const pairs = await frame
    .locator('.receipt-row')
    .evaluateAll((elements) =>
      elements.map((row) => [
        row.querySelector('dt')?.textContent ?? '',
        [...row.querySelectorAll('dd')].map((dd) => dd.textContent).join(' | '),
      ]),
    );
  return Object.fromEntries(pairs);
}

/**
 * What of the rows does not fit the frame's width: a value wider than its box (clipped), cut short by an
 * ellipsis, reaching outside the frame on either side, or the page scrolling sideways. Empty when all fit.
 */
async function overflowing(page: Page): Promise<string[]> {
  const inner = await paymentFrame(file.env, page);
  return inner.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > width)
      found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    for (const cell of document.querySelectorAll<HTMLElement>('.receipt-row dt, .receipt-row dd')) {
      const name = `"${cell.textContent}"`;
      if (cell.scrollWidth > cell.clientWidth)
        found.push(`${name} clipped (${cell.scrollWidth} > ${cell.clientWidth})`);
      for (const part of [cell, ...cell.querySelectorAll<HTMLElement>('*')]) {
        const style = getComputedStyle(part);
        if (style.textOverflow === 'ellipsis' || style.visibility === 'hidden') found.push(`${name} hidden`);
        for (const box of part.getClientRects()) {
          if (box.left < 0 || box.right > width + 0.5)
            found.push(
              `${name} outside the frame (${Math.round(box.left)}–${Math.round(box.right)} of ${width})`,
            );
        }
      }
    }
    return found;
  });
}

/** Answers the page's own requests for its payments `processing` until `release()` lets the real answers through. */
async function holdProcessing(context: BrowserContext) {
  const held = { on: true, expired: false, paymentId: '' };
  let waiting: (() => void)[] = [];
  /** Settles at the page's next check of the payment. */
  const nextPoll = () => new Promise<void>((resolve) => waiting.push(resolve));
  const firstPoll = nextPoll();
  const polled = () => {
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  await context.route('**/api/client/payments', async (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    const response = await route.fetch();
    const payment = await response.json();
    held.paymentId = payment.payment_id;
    await route.fulfill({ response, json: { ...payment, status: 'processing', next_action: null } });
  });
  await context.route(/\/api\/client\/payments\/pay_[^/?]+$/, async (route) => {
    if (held.expired) {
      return route.fulfill({
        status: 401,
        json: { error: 'unauthorized', detail: 'The session has expired.' },
      });
    }
    if (!held.on) return route.fallback();
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), status: 'processing' } });
    polled();
  });
  return { held, firstPoll, nextPoll };
}

/** Pays with `card`, held `processing`, then moves the page's clock past its 3-minute deadline. */
async function payAndWaitPastDeadline(look: Look, card: string) {
  const tenant = await receiptTenant();
  const opened = await open(tenant, look, true);
  const { held, firstPoll, nextPoll } = await holdProcessing(opened.context);
  await fillCard(opened.frame, card, '737');
  await opened.frame.getByRole('button', { name: PAY }).click();
  // The deadline's timer is set before the first check of the payment.
  await firstPoll;
  await opened.page.clock.fastForward('03:00');
  await opened.frame.getByRole('heading', { name: 'Your payment is being processed' }).waitFor();
  return { ...opened, held, nextPoll, tenant };
}

/** The pending panel: the amount and id, the promise to update, and nothing to pay with. */
async function assertPendingPanel(page: Page, frame: FrameLocator, paymentId: string): Promise<void> {
  const panel = await frame.locator('.pending').innerText();
  assert.match(panel, /Your payment of £963\.50 has not completed yet/);
  assert.match(panel, /We will update this page when it completes; you do not need to pay again\./);
  assert.deepEqual(await rows(frame), { Amount: '£963.50', 'Payment ID': paymentId });
  assert.equal(await frame.getByRole('button', { name: /^Pay/ }).count(), 0, 'no Pay button');
  assert.equal(await frame.getByLabel('Card number').count(), 0, 'no card form');
  assert.equal(await frame.locator('form, input').count(), 0, 'no form at all');
  assert.equal(await frame.getByRole('alert').count(), 0, 'no alert above it');
  const inner = await paymentFrame(file.env, page);
  await inner.waitForFunction(() => document.activeElement?.id === 'pending-title');
}

/** The receipt's rows about the payment `paymentId` itself. */
function receiptRows(tenant: Tenant, paymentId: string): Record<string, string> {
  return {
    Rent: '£950.00',
    Fee: '£13.50',
    'Total paid': '£963.50',
    'Paid to': PAYEE,
    Property: '10 Downing Street, London SW1A 1AA',
    Date: PAID_AT,
    'Payment ID': paymentId,
    Reference: tenant.paymentReference,
    'Paid with': 'Visa •••• 4242',
  };
}

/**
 * What the service says a payment of £950.00 paid on 27 July for a tenancy due £950.00 on the 1st since January:
 * the oldest due date, and six months are still overdue.
 */
const PAID_JANUARY = {
  'Applied to': 'January 2026 rent (due 1 Jan) £950.00',
  'Still owed': '£5,700.00 overdue',
  'Next rent': '£950.00 on 1 August',
};

/** The session as the page reads it, with what the payment paid and what is owed as the service will send them. */
async function withRentPosition(context: BrowserContext): Promise<void> {
  await context.route('**/api/client/session', async (route) => {
    const response = await route.fetch();
    const session = await response.json();
    session.paid_applied_to = [
      { due_date: '2026-06-01', amount: '450.00', rent: '950.00' },
      { due_date: '2026-07-01', amount: '500.00', rent: '950.00' },
    ];
    session.tenancy.ledger = {
      ...session.tenancy.ledger,
      arrears: '3600.00',
      days_overdue: 57,
      next_due: { date: '2026-08-01', amount: '950.00' },
    };
    await route.fulfill({ response, json: session });
  });
}

const LOOKS: Look[] = [280, 320, 375, 1280].flatMap((width) => [
  { width, colorScheme: 'light' as const },
  { width, colorScheme: 'dark' as const },
]);

describe('the receipt tells the whole truth, at every width', () => {
  for (const look of LOOKS) {
    it(`${look.width} px, ${look.colorScheme}: every value whole; rent, fee, total, payee and time`, async () => {
      const tenant = await receiptTenant();
      const fresh = await open(tenant, look);
      await fillCard(fresh.frame, VISA, '737');
      await fresh.frame.getByRole('button', { name: PAY }).click();
      await fresh.frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
      // The page reads the session again once paid, for what the payment paid and what is still owed.
      await fresh.frame.getByText('Still owed').waitFor();
      const paymentId = (await rows(fresh.frame))['Payment ID'] ?? '';
      assert.match(paymentId, /^pay_/);
      assert.match(
        await fresh.frame.locator('.receipt').innerText(),
        new RegExp(`You paid £963\\.50 to ${PAYEE}\\.`),
      );
      assert.deepEqual(await rows(fresh.frame), { ...receiptRows(tenant, paymentId), ...PAID_JANUARY });
      assert.deepEqual(await overflowing(fresh.page), [], 'the fresh receipt');
      const shot = `${look.width}px-${look.colorScheme}`;
      await screenshot(fresh.page, `page-receipt-truth-${shot}`);

      const reopened = await openReopened(tenant, look);
      assert.deepEqual(await rows(reopened.frame), {
        ...receiptRows(tenant, paymentId),
        'Applied to':
          'June 2026 rent (due 1 Jun) £450.00 of £950.00 | July 2026 rent (due 1 Jul) £500.00 of £950.00',
        'Still owed': '£3,600.00 overdue',
        'Next rent': '£950.00 on 1 August',
      });
      assert.deepEqual(await overflowing(reopened.page), [], 'the reopened receipt');
      await screenshot(reopened.page, `page-receipt-truth-reopened-${shot}`);
      assert.deepEqual(
        [
          ...(await violations(fresh.page, 'fresh receipt')),
          ...(await violations(reopened.page, 'reopened receipt')),
        ],
        [],
      );
    });
  }

  it('when the session cannot be read again after paying, the receipt says nothing of what was owed before', async () => {
    const tenant = await receiptTenant();
    const fresh = await openWithRentPosition(tenant, { width: 375, colorScheme: 'light' });
    await fresh.frame.getByRole('button', { name: PAY }).waitFor();
    // The session the page holds was read before paying: its debt includes what the payment is about to pay.
    await fresh.context.route('**/api/client/session', (route) => route.abort());
    await fillCard(fresh.frame, VISA, '737');
    await fresh.frame.getByRole('button', { name: PAY }).click();
    await fresh.frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    const shown = await rows(fresh.frame);
    assert.equal(shown['Still owed'], undefined);
    assert.equal(shown['Applied to'], undefined);
    assert.equal(shown.Rent, '£950.00');
  });
});

/** The tenant's paid session opened again, the session carrying what the payment paid and what is still owed. */
async function openReopened(tenant: Tenant, look: Look) {
  const opened = await openWithRentPosition(tenant, look);
  await opened.frame.getByRole('heading', { name: 'Rent paid' }).waitFor();
  await opened.frame.getByText('This payment is complete: there is nothing more to pay here.').waitFor();
  assert.equal(await opened.frame.getByRole('button', { name: /^Pay/ }).count(), 0);
  return opened;
}

describe('a payment still processing after the deadline', () => {
  it('shows a panel with no way to pay again, then the receipt when it succeeds', async () => {
    const { page, frame, held, nextPoll, tenant } = await payAndWaitPastDeadline(
      { width: 320, colorScheme: 'light' },
      VISA,
    );
    await assertPendingPanel(page, frame, held.paymentId);
    assert.deepEqual(await overflowing(page), [], 'the pending panel');
    await screenshot(page, 'page-payment-pending-light');
    assert.deepEqual(await violations(page, 'pending'), []);
    // Still checked, more slowly (every 5 seconds), and still pending while the payment is.
    const checked = nextPoll();
    await page.clock.fastForward(5_000);
    await checked;
    await assertPendingPanel(page, frame, held.paymentId);

    held.on = false;
    await page.clock.fastForward(5_000);
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await frame.getByText('Still owed').waitFor();
    assert.deepEqual(await rows(frame), { ...receiptRows(tenant, held.paymentId), ...PAID_JANUARY });
    assert.equal(await frame.getByRole('button', { name: /^Pay/ }).count(), 0);
    const inner = await paymentFrame(file.env, page);
    await inner.waitForFunction(() => document.activeElement?.id === 'success-title');
  });

  it('dark: a payment that fails in the end brings the form back with the decline', async () => {
    const { page, frame, held } = await payAndWaitPastDeadline({ width: 375, colorScheme: 'dark' }, DECLINED);
    await assertPendingPanel(page, frame, held.paymentId);
    assert.deepEqual(await violations(page, 'pending, dark'), []);
    await screenshot(page, 'page-payment-pending-dark');

    held.on = false;
    await page.clock.fastForward(5_000);
    await frame.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
    assert.match(
      await frame.getByRole('alert').innerText(),
      /Your card was declined\. You have not been charged\. Try another card/,
    );
    await frame.getByRole('button', { name: PAY }).waitFor();
    assert.equal(await frame.getByLabel('Card number').isDisabled(), false);
    assert.equal(await frame.locator('.pending').count(), 0);
  });

  it('when the session ends meanwhile, it says the page can no longer check, still with no form', async () => {
    const { page, frame, held } = await payAndWaitPastDeadline({ width: 280, colorScheme: 'light' }, VISA);
    held.expired = true;
    await page.clock.fastForward(5_000);
    await frame.getByText('Your session has ended, so this page can no longer check it.').waitFor();
    assert.match(await frame.locator('.pending').innerText(), /check there before paying again/);
    assert.equal(await frame.getByRole('button', { name: /^Pay/ }).count(), 0);
    assert.equal(await frame.getByText('you have not been charged').count(), 0);
    assert.deepEqual(await overflowing(page), [], 'the pending panel at 280 px');
  });

  it('in the SDK: pay() rejects with payment_pending, then onSuccess fires when it completes', async () => {
    const tenant = await receiptTenant();
    const { context, page } = await openSdkCheckout(file.env);
    file.contexts.push(context);
    await page.clock.install();
    const { held, firstPoll } = await holdProcessing(context);
    assert.deepEqual(await sdkInit(file.env, page, tenant, { pure_amount: 950 }), { ok: true });
    const form = page.frameLocator('#pay iframe');
    await fillCard(form, VISA, '737');
    const paying = sdkPay(page);
    await firstPoll;
    await page.clock.fastForward('03:00');
    const result = await paying;
    assert.equal(result.ok, false);
    assert.equal(result.value.code, 'payment_pending');
    assert.equal(result.value.payment_id, held.paymentId);
    await form.getByRole('heading', { name: 'Your payment is being processed' }).waitFor();
    assert.equal(await form.getByRole('button', { name: /^Pay/ }).count(), 0);

    held.on = false;
    await page.clock.fastForward(5_000);
    await form.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await page.waitForFunction(() =>
      (window as unknown as { events: { type: string }[] }).events.some(
        (event) => event.type === 'onSuccess',
      ),
    );
    const fired = await sdkEvents(page);
    assert.deepEqual(
      fired.map((event) => event.type),
      ['onError', 'onSuccess'],
    );
  });
});
