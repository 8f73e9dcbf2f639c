/**
 * A recurring charge the tenant's bank wants authenticated (SCA), on the hosted page in real Chromium inside the
 * integrator's page: the session's `action_required` shows first, a panel per charge (amount, what it is for, the
 * confirm-by day), and Confirm payment follows the charge's 3DS step as Pay does. With Stripe (its local stand-in,
 * its events reaching the app as Stripe sends them) and with the sandbox processor. The waiting charge is set up
 * through the APIs, as the platform and the schedule would make it: a saved card that needs 3DS every time, a
 * schedule, the sandbox test clock run to its first due date.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import {
  focused,
  newTenant,
  openInIntegratorPage,
  openSdkCheckout,
  type PageEnvironment,
  paymentFrame,
  screenshot,
  sdkEvents,
  sdkInit,
  startPageEnvironment,
  type Tenant,
  UI_TIMEOUT_MS,
} from '../support/browser.ts';
import { answerChallenge, type Client, cardToken, clientOf, PAN } from '../support/payment-client.ts';
import { createSchedule, integrationSchedules } from '../support/schedule-helpers.ts';
import {
  confirmationToken,
  STRIPE_WEBHOOK_PATH,
  STRIPE_WEBHOOK_SECRET,
  stripeConfig,
} from '../support/stripe-app.ts';
import { StripeStandIn } from '../support/stripe-server.ts';

const FEES = { card: { percent: '1.45', fixed: '0.00' } };
/** £500.00 rent each month plus the 1.45 % card fee. */
const CHARGED = '£507.25';
const HEADING = 'Your bank needs you to confirm this rent payment';

let stand: StripeStandIn;
let stripeEnv: PageEnvironment;
let sandboxEnv: PageEnvironment;
const contexts: BrowserContext[] = [];

before(async () => {
  stand = await StripeStandIn.start();
  stripeEnv = await startPageEnvironment({ fees: FEES }, { config: stripeConfig(stand) });
  stand.webhook = { url: `${stripeEnv.baseUrl}${STRIPE_WEBHOOK_PATH}`, secret: STRIPE_WEBHOOK_SECRET };
  sandboxEnv = await startPageEnvironment({ fees: FEES });
});

after(async () => {
  for (const context of contexts) await context.close();
  await stripeEnv.close();
  await sandboxEnv.close();
  await stand.close();
});

/** Polls `read` (every 50 ms, up to the UI timeout) until `done` holds; fails naming `what` with the last value. */
async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + UI_TIMEOUT_MS;
  for (let value = await read(); ; value = await read()) {
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`Timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Waiting {
  /** A new session of the tenant (user-login again), as the platform opens the page with. */
  tenant: Pick<Tenant, 'token' | 'sessionId'>;
  client: Client;
  paymentId: string;
  confirmBy: string;
}

/**
 * A tenant whose monthly £500.00 schedule charges a card needing 3DS every time (`saveCard` saves it, the 3DS of
 * its set-up passed), run by the sandbox test clock to its first due date: the charge waits for them. The tenant's
 * next session lists it.
 */
async function waitingCharge(
  env: PageEnvironment,
  saveCard: (client: Client) => Promise<string>,
): Promise<Waiting> {
  const first = await newTenant(env);
  const firstClient = clientOf(env.t, first.token);
  const cardId = await saveCard(firstClient);
  const created = await createSchedule({ client: firstClient, cardId }, { pure_amount: '500.00' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const ran = await integrationSchedules(env.t, env.api).run(created.body.next_due_date);
  assert.equal(ran.status, 200, JSON.stringify(ran.body));
  const login = await env.api.loginOk(first.email);
  const client = clientOf(env.t, login.token);
  const [waiting] = await eventually(
    'the charge to wait for the tenant (the session’s action_required)',
    async () => (await client.call('GET', '/session')).body.action_required,
    (listed) => listed?.length === 1,
  );
  assert.equal(waiting.payment.amount, '507.25');
  return {
    tenant: { token: login.token, sessionId: login.session_id },
    client,
    paymentId: waiting.payment.payment_id,
    confirmBy: waiting.confirm_by,
  };
}

/** With Stripe: `pm_card_authenticationRequired` saved, its SetupIntent's 3DS completed and Stripe's events in. */
async function saveStripeCard(client: Client): Promise<string> {
  const saved = await client.saveCard(confirmationToken(stand, 'pm_card_authenticationRequired'));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  if (saved.body.status === 'requires_action') {
    const setup = [...stand.setupIntents.values()].find(
      (intent) => intent.client_secret === saved.body.next_action.client_secret,
    );
    stand.completeAction(String(setup?.id), true);
  }
  await eventually(
    'the saved card to be active',
    () => client.card(saved.body.card_id),
    (card) => card.body.status === 'active',
  );
  return saved.body.card_id;
}

/** With the sandbox: the card that always asks for 3DS, its set-up check authorised on the sandbox's page. */
async function saveSandboxCard(client: Client): Promise<string> {
  const saved = await client.saveCard(await cardToken(sandboxEnv.t, PAN.threeDsAlways));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  if (saved.body.status === 'requires_action') {
    assert.equal((await answerChallenge(sandboxEnv.t, saved.body.next_action.url, 'authorise')).status, 202);
  }
  await eventually(
    'the saved card to be active',
    () => client.card(saved.body.card_id),
    (card) => card.body.status === 'active',
  );
  return saved.body.card_id;
}

async function hostedPage(
  env: PageEnvironment,
  tenant: Waiting['tenant'],
): Promise<{ page: Page; frame: FrameLocator }> {
  const opened = await openInIntegratorPage(env, tenant);
  contexts.push(opened.context);
  return opened;
}

/** axe-core's WCAG 2.0–2.2 A and AA findings in the payment page's frame, as "rule: first node". */
async function axeFindings(env: PageEnvironment, page: Page): Promise<string[]> {
  const inner = await paymentFrame(env, page);
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await inner.evaluate(() => 'axe' in window))) await inner.evaluate(source);
  return inner.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe, injected above
    const { violations } = await (window as any).axe.run(document, {
      runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'],
    });
    // biome-ignore lint/suspicious/noExplicitAny: axe's result shape
    return violations.map((found: any) => `${found.id}: ${found.nodes[0]?.target}`);
  });
}

/** "2026-03-04" as the tenant reads it: "4 March 2026". */
function inWords(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** The waiting charge's panel: its heading, the amount first, what it is for, the confirm-by day, the button. */
async function assertPanel(frame: FrameLocator, confirmBy: string): Promise<void> {
  const panel = frame.getByRole('region', { name: HEADING });
  await panel.getByRole('heading', { name: HEADING, level: 2 }).waitFor();
  const text = await panel.innerText();
  assert.match(text, new RegExp(`^${HEADING}\\s+Amount\\s+${CHARGED}`), 'the amount first');
  assert.match(text, /Recurring rent, reference RENT-\d+: £500\.00 rent \+ £7\.25 card fee/);
  assert.match(text, new RegExp(`Confirm by ${inWords(confirmBy)}`));
  // Before the Pay form, which stays on the page.
  const confirm = frame.getByRole('button', { name: 'Confirm payment' });
  const pay = frame.getByRole('button', { name: /^Pay £/ });
  await pay.waitFor();
  const [confirmBox, payBox] = [await confirm.boundingBox(), await pay.boundingBox()];
  assert.ok(confirmBox && payBox && confirmBox.y < payBox.y, 'the panel comes before the Pay form');
}

/** Stripe.js's authentication dialog (the stand-in issuer's page): Complete or Fail. */
async function authenticate(frame: FrameLocator, answer: 'Complete' | 'Fail'): Promise<void> {
  await frame
    .frameLocator('iframe[title="Stripe authentication"]')
    .getByRole('button', { name: answer })
    .click();
}

/** After the outcome: the payment as the Client API answers it, and what the session still lists. */
async function afterwards(waiting: Waiting): Promise<{ status: string; actionRequired: unknown[] }> {
  const payment = await waiting.client.payment(waiting.paymentId);
  const session = await waiting.client.call('GET', '/session');
  return { status: payment.body.status, actionRequired: session.body.action_required };
}

describe('a recurring charge the bank wants authenticated, on the hosted page (Stripe)', () => {
  it('shows the charge first; Confirm payment and 3DS completed: "Payment confirmed", and nothing waits any more', async () => {
    const waiting = await waitingCharge(stripeEnv, saveStripeCard);
    const { page, frame } = await hostedPage(stripeEnv, waiting.tenant);
    await assertPanel(frame, waiting.confirmBy);
    await screenshot(page, 'page-action-required');
    assert.deepEqual(await axeFindings(stripeEnv, page), [], 'the panel');
    // Keyboard: the button takes focus and Enter presses it.
    await frame.getByRole('button', { name: 'Confirm payment' }).focus();
    await page.keyboard.press('Enter');
    await authenticate(frame, 'Complete');
    const confirmed = frame.getByRole('heading', { name: 'Payment confirmed', level: 2 });
    await confirmed.waitFor();
    await focused(confirmed);
    const outcome = frame.getByRole('region', { name: 'Payment confirmed' });
    assert.match(await outcome.innerText(), new RegExp(`You paid ${CHARGED} for your rent`));
    assert.match(await outcome.locator('.summary').innerText(), new RegExp(waiting.paymentId));
    await screenshot(page, 'page-action-required-confirmed');
    assert.deepEqual(await axeFindings(stripeEnv, page), [], 'the confirmed payment');
    assert.deepEqual(await afterwards(waiting), { status: 'succeeded', actionRequired: [] });
    // The Pay form is still there.
    await frame.getByRole('button', { name: /^Pay £/ }).waitFor();
  });

  it('3DS failed: the failure is shown and nothing is charged', async () => {
    const waiting = await waitingCharge(stripeEnv, saveStripeCard);
    const { page, frame } = await hostedPage(stripeEnv, waiting.tenant);
    await assertPanel(frame, waiting.confirmBy);
    await frame.getByRole('button', { name: 'Confirm payment' }).click();
    await authenticate(frame, 'Fail');
    const failure = frame.getByRole('alert').filter({ hasText: 'You have not been charged.' });
    await failure.waitFor();
    await focused(failure);
    await screenshot(page, 'page-action-required-failed');
    assert.equal(await frame.getByRole('heading', { name: 'Payment confirmed' }).count(), 0);
    const ended = await eventually(
      'the charge to fail',
      () => afterwards(waiting),
      (now) => now.status !== 'requires_action',
    );
    assert.deepEqual(ended, { status: 'failed', actionRequired: [] });
  });

  it('in the SDK’s form: the panel shows too, and its outcome reaches onSuccess as a payment’s does', async () => {
    const waiting = await waitingCharge(stripeEnv, saveStripeCard);
    const { context, page } = await openSdkCheckout(stripeEnv);
    contexts.push(context);
    assert.deepEqual(await sdkInit(stripeEnv, page, waiting.tenant), { ok: true });
    const frame = page.frameLocator('#pay iframe');
    await frame.getByRole('button', { name: 'Confirm payment' }).click();
    await authenticate(frame, 'Complete');
    await frame.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
    const events = await eventually(
      'onSuccess in the integrator’s page',
      () => sdkEvents(page),
      (logged) => logged.some((event) => event.type === 'onSuccess'),
    );
    const success = events.find((event) => event.type === 'onSuccess');
    const payment = success?.payment as { payment_id: string; status: string } | undefined;
    assert.deepEqual([payment?.payment_id, payment?.status], [waiting.paymentId, 'succeeded']);
  });
});

describe('a recurring charge the bank wants authenticated, on the hosted page (sandbox)', () => {
  it('Confirm payment shows the sandbox’s 3DS check in the page; Authorise: "Payment confirmed"', async () => {
    const waiting = await waitingCharge(sandboxEnv, saveSandboxCard);
    const { frame } = await hostedPage(sandboxEnv, waiting.tenant);
    await assertPanel(frame, waiting.confirmBy);
    await frame.getByRole('button', { name: 'Confirm payment' }).click();
    await frame.getByRole('heading', { name: 'Confirm it’s you' }).waitFor();
    await frame
      .frameLocator('iframe[title="3D Secure check"]')
      .getByRole('button', { name: 'Authorise' })
      .click();
    // Back from the step, the outcome takes the focus (not the page's heading).
    await focused(frame.getByRole('heading', { name: 'Payment confirmed' }));
    assert.deepEqual(await afterwards(waiting), { status: 'succeeded', actionRequired: [] });
  });

  it('Cancel on the 3DS check leaves the charge waiting, to confirm later; Fail shows the failure', async () => {
    const waiting = await waitingCharge(sandboxEnv, saveSandboxCard);
    const { frame } = await hostedPage(sandboxEnv, waiting.tenant);
    await frame.getByRole('button', { name: 'Confirm payment' }).click();
    await frame.getByRole('heading', { name: 'Confirm it’s you' }).waitFor();
    await frame.getByRole('button', { name: 'Cancel' }).click();
    await frame.getByRole('alert').filter({ hasText: 'not confirmed yet' }).waitFor();
    assert.equal((await afterwards(waiting)).status, 'requires_action');
    await frame.getByRole('button', { name: 'Confirm payment' }).click();
    await frame.frameLocator('iframe[title="3D Secure check"]').getByRole('button', { name: 'Fail' }).click();
    await frame.getByRole('alert').filter({ hasText: 'You have not been charged.' }).waitFor();
    assert.deepEqual(await afterwards(waiting), { status: 'failed', actionRequired: [] });
  });
});
