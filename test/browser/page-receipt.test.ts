/**
 * The session's ends, on the hosted page: a session paid already shows its receipt when the page opens again
 * (a reload, the link reopened), never a new Pay form; a session about to lapse warns a minute before, and
 * one that lapses with the page open says at once that nothing was charged (the SDK hears `expired`). Real
 * Chromium, the integrator's page; the browser's clock is Playwright's fake one where time matters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CARD_FEES,
  effectsRun,
  fillCard,
  newTenant,
  openInIntegratorPage,
  openSdkCheckout,
  pageEnvironmentPerFile,
  pageUrl,
  screenshot,
  sdkEvents,
  sdkInit,
  UI_TIMEOUT_MS,
} from '../support/browser.ts';
import { cardToken, clientOf } from '../support/payment-client.ts';

const file = pageEnvironmentPerFile({ fees: CARD_FEES });

describe('hosted page: a paid session', () => {
  it('opens on its receipt: "Rent paid", the amount and date, no Pay button', async () => {
    const tenant = await newTenant(file.env);
    const client = clientOf(file.env.t, tenant.token);
    const before = await client.call('GET', '/session');
    assert.equal(before.body.paid, null);
    const paid = await client.pay({
      card_token: await cardToken(file.env.t, '4242424242424242'),
      expected_amount: '1217.40',
    });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    const after = await client.call('GET', '/session');
    assert.equal(after.body.paid.payment_id, paid.body.payment_id);
    assert.equal(after.body.paid.amount, '1217.40');

    const { page, frame, context } = await openInIntegratorPage(file.env, tenant);
    file.contexts.push(context);
    await frame.getByRole('heading', { name: 'Rent paid' }).waitFor();
    assert.match(
      await frame.locator('.result').innerText(),
      /You paid £1,217\.40 to Landlord Ltd\.[\s\S]*10 Downing Street[\s\S]*Date\s+\d{1,2} \w+ \d{4}, \d{2}:\d{2}/,
    );
    await frame.getByText('This payment is complete: there is nothing more to pay here.').waitFor();
    assert.equal(await frame.getByRole('button', { name: /^Pay/ }).count(), 0);
    assert.equal(await frame.getByLabel('Card number').count(), 0);
    const summary = await frame.locator('.summary').innerText();
    assert.match(summary, new RegExp(paid.body.payment_id));
    assert.match(summary, new RegExp(`Reference\\s+${tenant.paymentReference}`));
    await screenshot(page, 'page-receipt');
  });
});

describe('hosted page: a session that lapses while it is open', () => {
  it('warns a minute before, then says nothing was charged and how to start again', async () => {
    const tenant = await newTenant(file.env);
    const client = clientOf(file.env.t, tenant.token);
    // The token lapses first: 15 minutes after user-login, by the server's clock.
    assert.equal((await client.call('GET', '/session')).body.expires_in_seconds, 900);
    const context = await file.env.browser.newContext({ viewport: { width: 480, height: 820 } });
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    file.contexts.push(context);
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(
      `${file.env.integratorOrigin}/embed?src=${encodeURIComponent(pageUrl(file.env, tenant))}`,
    );
    const frame = page.frameLocator('#rentpay');
    await fillCard(frame, '4242424242424242', '737');
    const warning = frame.getByRole('alert').filter({ hasText: 'Your session ends in about a minute' });
    assert.equal(await warning.count(), 0);

    await effectsRun(file.env, page);
    await page.clock.fastForward('14:01');
    await warning.waitFor();
    assert.match(await warning.innerText(), /^Your session ends in about a minute\.\s+Keep me signed in$/);
    assert.equal(await frame.getByRole('heading', { name: 'Session expired' }).count(), 0);

    await page.clock.fastForward('01:00');
    await frame.getByRole('heading', { name: 'Session expired' }).waitFor();
    await frame
      .getByText('Your payment session timed out before a payment was made, so you have not been charged.')
      .waitFor();
    // In the platform's iframe it offers to start again there (page-rent-truth.test.ts follows that through).
    await frame.getByRole('button', { name: 'Start again' }).waitFor();
    assert.equal(await frame.getByLabel('Card number').count(), 0, 'the form is gone');
    await screenshot(page, 'page-session-timed-out');
  });

  it('in the SDK: the expired event fires with session_expired', async () => {
    const tenant = await newTenant(file.env);
    const { context, page } = await openSdkCheckout(file.env);
    file.contexts.push(context);
    await page.clock.install();
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      w.SVC.on('expired', (error: unknown) => w.events.push({ type: 'expired', error }));
      w.SVC.on('change', () => w.events.push({ type: 'change' }));
    });
    assert.deepEqual(await sdkInit(file.env, page, tenant), { ok: true });
    // init resolves on the frame's "ready", posted before the render that arms the session's timers; its first
    // "change" comes from an effect of that render after the timers' own. Moving the clock earlier, a busy machine
    // could arm them after the jump, 15 minutes from then.
    await page.waitForFunction(() =>
      (window as unknown as { events: { type: string }[] }).events.some((event) => event.type === 'change'),
    );
    await page.clock.fastForward('15:00');
    await page.waitForFunction(() =>
      (window as unknown as { events: { type: string }[] }).events.some((event) => event.type === 'expired'),
    );
    const events = await sdkEvents(page);
    const expired = events.find((event) => event.type === 'expired') as unknown as {
      error: { code: string };
    };
    assert.equal(expired.error.code, 'session_expired');
    assert.ok(events.some((event) => event.type === 'onError'));
  });
});
