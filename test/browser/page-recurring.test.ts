/**
 * Recurring rent from the tenant's side, in headless Chromium: set up, pause, resume and cancel in the hosted
 * page (framed by the integrator's site) and in the SDK's form, with an installment plan and without. Each step
 * is checked in the database (schedule row and its schedule_* event), not only on screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import { send } from '../support/api-client.ts';
import {
  CARD_FEES,
  focused,
  newTenant,
  openInIntegratorPage,
  openSdkCheckout,
  operatorCall,
  type PageEnvironment,
  RAISED_CARD_FEES,
  screenshot,
  startPageEnvironment,
  type Tenant,
  withFees,
} from '../support/browser.ts';
import { installment, tenancyBody, userBody } from '../support/fixtures.ts';
import { cardToken, clientOf } from '../support/payment-client.ts';
import { createSchedule } from '../support/schedule-helpers.ts';

const MASTERCARD = '5555555555554444';

let env: PageEnvironment;
const contexts: BrowserContext[] = [];

before(async () => {
  env = await startPageEnvironment();
});
after(async () => {
  for (const context of contexts) await context.close();
  await env.close();
});

/** A saved Mastercard ending 4444 for the tenant, through the Client API as the page's card form would. */
async function saveCard(tenant: Pick<Tenant, 'token'>): Promise<string> {
  const saved = await clientOf(env.t, tenant.token).saveCard(await cardToken(env.t, MASTERCARD));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  return saved.body.card_id;
}

let nextUser = 9_000;

/** A tenant whose tenancy pays by three installments of its own amounts, logged in. */
async function tenantWithInstallments(): Promise<Tenant> {
  const userId = nextUser++;
  const email = `plan${userId}@example.com`;
  const paymentReference = `PLAN-${userId}`;
  await env.api.onboardOk(
    userBody({
      user_id: userId,
      email,
      tenant: [
        tenancyBody({
          payment_reference: paymentReference,
          installment_payment: {
            total_amount: 2100,
            installments: [
              installment(1, '2026-04-01', 600),
              installment(2, '2026-07-01', 700),
              installment(3, '2026-10-01', 800),
            ],
          },
        }),
      ],
    }),
  );
  const login = await env.api.loginOk(email);
  return { token: login.token, sessionId: login.session_id, email, userId, paymentReference };
}

async function schedulesOf(tenant: Pick<Tenant, 'paymentReference'>) {
  return env.t.db.query<{
    id: string;
    status: string;
    installment_plan: boolean;
    pure_amount_pence: number | null;
    saved_card_id: string;
  }>(
    `SELECT s.id, s.status, s.installment_plan, s.pure_amount_pence, s.saved_card_id
       FROM schedules s JOIN tenancies t ON t.id = s.tenancy_id
      WHERE t.payment_reference = $1 ORDER BY s.created_at`,
    [tenant.paymentReference],
  );
}

async function scheduleEvents(scheduleId: string): Promise<string[]> {
  const rows = await env.t.db.query<{ type: string }>(
    `SELECT type FROM events WHERE data->'schedule'->>'schedule_id' = $1 ORDER BY created_at, id`,
    [scheduleId],
  );
  return rows.map((row) => row.type);
}

/** Reviews the terms the form describes, ticks the authorisation and sets recurring rent up. */
async function authorise(form: FrameLocator) {
  await form.getByRole('button', { name: 'Review recurring rent' }).click();
  await form.getByRole('heading', { name: 'Check and authorise' }).waitFor();
  await form.getByLabel('I authorise these payments').check();
  await form.getByRole('button', { name: 'Set up recurring rent' }).click();
  // Until this shows, the review (whose sentence names the amount too) may still be on screen.
  await form.getByRole('status').filter({ hasText: 'Recurring rent is set up.' }).waitFor();
}

/** Sets up recurring rent in `form`, then pauses, resumes and cancels it, checking the database after each. */
async function setUpPauseResumeCancel(
  form: FrameLocator,
  page: Page,
  tenant: Tenant,
  cardId: string,
  name: string,
) {
  await form.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
  await authorise(form);
  await form.getByRole('status').filter({ hasText: 'Recurring rent is set up.' }).waitFor();
  await form.getByText('Active', { exact: true }).waitFor();
  const [created] = await schedulesOf(tenant);
  assert.ok(created);
  assert.equal(created.status, 'active');
  assert.equal(created.saved_card_id, cardId);
  await screenshot(page, `${name}-active`);

  env.t.clock.advance(1_000); // events are ordered by their time
  await form.getByRole('button', { name: 'Pause' }).click();
  await form.getByRole('status').filter({ hasText: 'Recurring rent paused.' }).waitFor();
  await form.getByText('Paused', { exact: true }).waitFor();
  assert.equal((await schedulesOf(tenant))[0]?.status, 'paused');

  env.t.clock.advance(1_000); // events are ordered by their time
  await form.getByRole('button', { name: 'Resume' }).click();
  await form.getByRole('status').filter({ hasText: 'Recurring rent active.' }).waitFor();
  assert.equal((await schedulesOf(tenant))[0]?.status, 'active');

  env.t.clock.advance(1_000); // events are ordered by their time
  await form.getByRole('button', { name: 'Cancel recurring rent' }).click();
  // It asks first, and nothing changes until the tenant says yes.
  await form.getByText(/^Cancel recurring rent\? No more payments will be taken automatically/).waitFor();
  assert.equal((await schedulesOf(tenant))[0]?.status, 'active');
  await form.getByRole('button', { name: 'Yes, cancel recurring rent' }).click();
  await form.getByRole('status').filter({ hasText: 'Recurring rent cancelled.' }).waitFor();
  // With no live schedule left, the set-up form is back.
  await form.getByRole('button', { name: 'Review recurring rent' }).waitFor();
  assert.equal((await schedulesOf(tenant))[0]?.status, 'canceled');
  assert.deepEqual(await scheduleEvents(created.id), [
    'schedule_created',
    'schedule_paused',
    'schedule_resumed',
    'schedule_canceled',
  ]);
  await screenshot(page, `${name}-canceled`);
  return created;
}

describe('recurring rent in the hosted page', () => {
  it('set up with the rent and a saved card, then pause, resume and cancel: each recorded with its event', async () => {
    const tenant = await newTenant(env, '950.00');
    const cardId = await saveCard(tenant);
    const { context, page, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    assert.equal(await frame.getByLabel('Amount each time (£)').inputValue(), '950.00');
    assert.equal(
      await frame.getByLabel('Card', { exact: true }).locator('option:checked').textContent(),
      'Mastercard ending 4444',
    );
    await frame.getByText('every month, on day 1, until 31 December 2026').waitFor();
    const created = await setUpPauseResumeCancel(frame, page, tenant, cardId, 'recurring-page');
    assert.equal(created.installment_plan, false);
    assert.equal(created.pure_amount_pence, null, 'the rent itself follows the tenancy');
  });

  it('the review shows each payment with its fee, the dates and the sentence; nothing is set up until the tenant ticks it', async () => {
    // A card fee of 1.45 %: £1,200.00 of rent is £1,217.40 a month.
    await withFees(env, CARD_FEES, {}, async () => {
      const tenant = await newTenant(env, '1200.00');
      await saveCard(tenant);
      const { context, page, frame } = await openInIntegratorPage(env, tenant);
      contexts.push(context);
      await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
      await frame.getByRole('button', { name: 'Review recurring rent' }).click();
      const heading = frame.getByRole('heading', { name: 'Check and authorise' });
      await focused(heading);
      const summary = await frame.locator('.review dl').innerText();
      assert.match(summary, /Each payment\s+£1,217\.40 \(£1,200\.00 rent \+ £17\.40 card fee\)/);
      assert.match(summary, /Payments\s+1 \w+ 20\d\d, 1 \w+ 20\d\d, 1 \w+ 20\d\d/);
      const sentence = await frame.locator('#authorisation').innerText();
      assert.match(
        sentence,
        /^I authorise .+ to charge my Mastercard card ending 4444 £1,217\.40 \(£1,200\.00 rent plus a £17\.40 card fee\) every month on the 1st/,
      );
      await screenshot(page, 'recurring-review');

      await frame.getByRole('button', { name: 'Set up recurring rent' }).click();
      await frame
        .getByRole('alert')
        .filter({ hasText: 'Tick the box to authorise these payments' })
        .waitFor();
      assert.deepEqual(await schedulesOf(tenant), []);

      // The operator raises the card fee while the tenant reads: the set-up is refused and the new terms are shown.
      const raised = await operatorCall(env, '', 'PATCH', { fees: RAISED_CARD_FEES });
      assert.equal(raised.status, 200);
      await frame.getByLabel('I authorise these payments').check();
      await frame.getByRole('button', { name: 'Set up recurring rent' }).click();
      await frame
        .getByRole('alert')
        .filter({ hasText: 'The payments changed since you checked them' })
        .waitFor();
      assert.match(
        await frame.locator('#authorisation').innerText(),
        /£1,224\.20 \(£1,200\.00 rent plus a £24\.20 card fee\)/,
      );
      assert.equal(await frame.getByLabel('I authorise these payments').isChecked(), false);
      assert.deepEqual(await schedulesOf(tenant), []);

      await frame.getByLabel('I authorise these payments').check();
      await frame.getByRole('button', { name: 'Set up recurring rent' }).click();
      await frame.getByRole('status').filter({ hasText: 'Recurring rent is set up.' }).waitFor();
      await frame.getByText('£1,200.00 rent + £24.20 card fee').waitFor();
      const [stored] = await env.t.db.query<{ authorization_text: string; authorization_version: string }>(
        `SELECT s.authorization_text, s.authorization_version FROM schedules s JOIN tenancies t ON t.id = s.tenancy_id
          WHERE t.payment_reference = $1`,
        [tenant.paymentReference],
      );
      assert.equal(stored?.authorization_version, 'recurring-card-2026-11');
      assert.match(stored!.authorization_text, /£1,224\.20/);
    });
  });

  it('a tenant’s own amount is kept on the schedule', async () => {
    const tenant = await newTenant(env, '950.00');
    await saveCard(tenant);
    const { context, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    await frame.getByLabel('Amount each time (£)').fill('1000.50');
    await authorise(frame);
    await frame.getByText('£1,000.50').waitFor();
    assert.equal((await schedulesOf(tenant))[0]?.pure_amount_pence, 100_050);
  });

  it('an amount that is not money is refused on the page and nothing is created', async () => {
    const tenant = await newTenant(env);
    await saveCard(tenant);
    const { context, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    await frame.getByLabel('Amount each time (£)').fill('twelve');
    await frame.getByRole('button', { name: 'Review recurring rent' }).click();
    await frame.getByRole('alert').filter({ hasText: 'Enter an amount in pounds' }).waitFor();
    assert.deepEqual(await schedulesOf(tenant), []);
  });

  it('with an installment plan: the plan is shown and followed by default (no amount is sent)', async () => {
    const tenant = await tenantWithInstallments();
    await saveCard(tenant);
    const { context, page, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    assert.equal(await frame.getByLabel('Follow my installment plan').isChecked(), true);
    const plan = frame.getByRole('list', { name: 'Installments' });
    assert.deepEqual(await plan.getByRole('listitem').allTextContents(), [
      '1 April 2026: £600.00',
      '1 July 2026: £700.00',
      '1 October 2026: £800.00',
    ]);
    assert.equal(await frame.getByLabel('Amount each time (£)').count(), 0);
    await authorise(frame);
    await frame.getByText('£600.00 next, by your installment plan').waitFor();
    await frame.getByText('next payment 1 April 2026').waitFor();
    const [schedule] = await schedulesOf(tenant);
    assert.equal(schedule?.installment_plan, true);
    assert.equal(schedule?.pure_amount_pence, null);
    await screenshot(page, 'recurring-installments');
  });

  it('with an installment plan, unticking it asks for an amount and charges that instead', async () => {
    const tenant = await tenantWithInstallments();
    await saveCard(tenant);
    const { context, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    await frame.getByLabel('Follow my installment plan').uncheck();
    await frame.getByLabel('Amount each time (£)').fill('500.00');
    await authorise(frame);
    await frame.getByText('£500.00').waitFor();
    const [schedule] = await schedulesOf(tenant);
    assert.equal(schedule?.installment_plan, false);
    assert.equal(schedule?.pure_amount_pence, 50_000);
  });

  it('a pause made by the integrator (Integration API) shows as paused when the tenant opens the page', async () => {
    const tenant = await newTenant(env);
    const cardId = await saveCard(tenant);
    const created = await createSchedule({ client: clientOf(env.t, tenant.token), cardId });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const paused = await send(env.t, {
      method: 'POST',
      url: `/api/third-party/schedules/${created.body.schedule_id}/pause/`,
      headers: { authorization: `Token ${env.api.serverToken}` },
    });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    const { context, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    await frame.getByText('Paused', { exact: true }).waitFor();
    await frame.getByRole('button', { name: 'Resume' }).waitFor();
  });

  it('without a saved card the page says how to get one and offers no set-up', async () => {
    const tenant = await newTenant(env);
    const { context, frame } = await openInIntegratorPage(env, tenant);
    contexts.push(context);
    await frame.getByRole('tab', { name: 'Recurring rent', exact: true }).click();
    await frame.getByText('first pay with a new card and tick').waitFor();
    assert.equal(await frame.getByRole('button', { name: 'Review recurring rent' }).count(), 0);
  });
});

describe('recurring rent in the SDK form', () => {
  async function checkout(): Promise<Page> {
    const { context, page } = await openSdkCheckout(env);
    contexts.push(context);
    return page;
  }

  async function init(page: Page, tenant: Tenant, features: Record<string, boolean>) {
    return page.evaluate(
      async ({ base, token, features }) => {
        // biome-ignore lint/suspicious/noExplicitAny: the page's globals
        const w = window as any;
        try {
          await w.SVC.init({
            apiBaseUrl: base,
            authToken: token,
            container: '#pay',
            environment: 'sandbox',
            pure_amount: 1200,
            features,
          });
          return 'ready';
        } catch (error) {
          return JSON.stringify(error);
        }
      },
      { base: env.baseUrl, token: tenant.token, features },
    );
  }

  it('features.recurring: set up, pause, resume and cancel inside the SDK’s iframe', async () => {
    const tenant = await newTenant(env);
    const cardId = await saveCard(tenant);
    const page = await checkout();
    assert.equal(await init(page, tenant, { recurring: true }), 'ready');
    await setUpPauseResumeCancel(page.frameLocator('#pay iframe'), page, tenant, cardId, 'recurring-sdk');
  });

  it('features.recurring false: no recurring rent in the form', async () => {
    const tenant = await newTenant(env);
    await saveCard(tenant);
    const page = await checkout();
    assert.equal(await init(page, tenant, { recurring: false }), 'ready');
    const form = page.frameLocator('#pay iframe');
    await form.getByRole('group', { name: 'Payment method' }).waitFor();
    assert.equal(await form.getByRole('tab', { name: 'Recurring rent', exact: true }).count(), 0);
  });
});
