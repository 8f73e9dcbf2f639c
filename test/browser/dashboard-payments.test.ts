/**
 * The dashboard's home and payment pages in real headless Chromium: the home chart against the API and its figures
 * opening their lists, a payment found by its reference, a refund by finance (previewed, confirmed once however
 * often the answer is lost) and refused to support, the CSV export of a search; axe-core on each page at a phone's
 * and a desktop's width, light and dark.
 */

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { integrationApi, UNLIMITED } from '../support/api-client.ts';
import {
  assertNoProblems,
  DashboardBrowser,
  focused,
  LOOKS,
  type Look,
  lookProblems,
  screenshot,
} from '../support/dashboard-browser.ts';
import { signedInPerson } from '../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runJobs, type TestApp } from '../support/helpers.ts';
import { cardPayment } from '../support/operation-tests.ts';
import { clientOf } from '../support/payment-client.ts';
import { Receiver } from '../support/webhook-receiver.ts';

let d: DashboardBrowser;
let t: TestApp;
let receiver: Receiver;
/** Ada's £1,217.40 card payment (£1,200.00 rent, a 1.45 % fee), and the one Bob's bank declined. */
let adaPayment: string;
let bobDeclined: string;
/** The payment a look test previews a refund of (never refunded). */
let lookPayment: string;

before(async () => {
  receiver = await Receiver.start();
  // Every delivery fails, so the home page has deliveries pending (retrying).
  receiver.respond = () => ({ status: 500, body: 'down' });
  d = await DashboardBrowser.start({ allowPrivateWebhookHosts: true });
  t = d.t;
  await t.app.ctx.integrators.update(
    d.integratorId,
    {
      ...UNLIMITED,
      webhook_url: `http://127.0.0.1:${receiver.port}/hooks`,
      fees: { card: { percent_bps: 145, fixed_pence: 0 } },
    },
    SYSTEM_ACTOR,
  );
  const token = await t.app.ctx.integrators.issueServerToken(d.integratorId, 0, SYSTEM_ACTOR);
  const api = integrationApi(t, { id: d.integratorId, token });
  const tenant = async (userId: number, first: string, reference: string) => {
    await api.onboardOk(
      userBody({
        user_id: userId,
        email: `${first.toLowerCase()}@example.com`,
        first_name: first,
        last_name: 'Tenant',
        tenant: [tenancyBody({ payment_reference: reference })],
      }),
    );
    return clientOf(t, (await api.loginOk(`${first.toLowerCase()}@example.com`)).token);
  };
  adaPayment = (await cardPayment(t, await tenant(1, 'Ada', 'ADA-1'))).payment_id;
  bobDeclined = (await cardPayment(t, await tenant(2, 'Bob', 'BOB-1'), '4000000000000002')).payment_id;
  lookPayment = (await cardPayment(t, await tenant(3, 'Cy', 'CY-1'))).payment_id;
  await runJobs(t);
});

after(async () => {
  await d?.close();
  await receiver?.close();
});

/** A page signed in as a person of `role` at `place`; answers the page and the person's email. */
async function openAs(role: 'admin' | 'developer' | 'finance' | 'support', place: string, look?: Look) {
  const page = await d.openPage(look);
  const { email } = await d.signedInAs(page, role);
  await d.goTo(page, place, email);
  return { page, email };
}

/** A dashboard API request from the page itself, with its session and CSRF token (as a crafted request would be). */
function fromPage(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return page.evaluate(
    async ({ method, path, body, headers }) => {
      const me = await (await fetch('/api/dashboard/me/')).json();
      const response = await fetch(`/api/dashboard${path}`, {
        method,
        headers: {
          ...headers,
          'x-csrf-token': me.csrf_token,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    { method, path, body, headers },
  );
}

const paymentRows = (page: Page) => page.getByRole('region', { name: 'Payments found' }).locator('tbody tr');

async function refundsOf(paymentId: string) {
  return t.db.query<{ amount_pence: number; status: string }>(
    'SELECT amount_pence::int AS amount_pence, status FROM refunds WHERE payment_id = $1',
    [paymentId],
  );
}

describe('dashboard payments pages', () => {
  it('home: the chart’s points are the API’s series; the failed figure opens those payments, pending deliveries open those events', async () => {
    const { page } = await openAs('developer', 'home');
    await page.getByRole('heading', { name: 'Rent collected and due, last 30 days' }).waitFor();
    const home = await fromPage(page, 'GET', '/home/');
    assert.equal(home.status, 200);
    const points = await page.locator('svg .point').evaluateAll((elements) =>
      elements.map((element) => ({
        series: element.getAttribute('data-series'),
        value: Number(element.getAttribute('data-value')),
      })),
    );
    const series = home.body.series as { collected: string; due: string }[];
    assert.equal(series.length, 30);
    const valuesOf = (name: string) =>
      points.filter((point) => point.series === name).map((point) => point.value);
    assert.deepEqual(
      valuesOf('Collected'),
      series.map((day) => Number(day.collected)),
    );
    assert.deepEqual(
      valuesOf('Due'),
      series.map((day) => Number(day.due)),
    );
    assert.ok(
      valuesOf('Collected').some((value) => value > 0),
      'rent was collected today',
    );

    await page.getByRole('link', { name: /failed in the last 30 days/ }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    assert.match(new URL(page.url()).hash, /^#payments\?status=failed&from=\d{4}-\d{2}-\d{2}&to=/);
    await paymentRows(page).filter({ hasText: bobDeclined }).waitFor();
    assert.equal(await paymentRows(page).count(), 1);
    assert.equal(await page.getByLabel('Status').inputValue(), 'failed');

    await page.goBack();
    await page.getByRole('link', { name: /deliveries pending/ }).click();
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).hash, '#developers/events?status=pending');
    assert.equal(await page.getByLabel('Show').inputValue(), 'pending');
    await page
      .getByRole('cell', { name: /^Pending next try/ })
      .first()
      .waitFor();
    await focused(page.getByRole('heading', { name: 'Events', level: 2 }));
  });

  it('support finds a payment by its reference; its page has no refund, and a crafted refund gets 403', async () => {
    const { page } = await openAs('support', 'payments');
    await paymentRows(page).first().waitFor();
    await page.getByLabel('Payment reference').fill('ADA-1');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/#payments\?payment_reference=ADA-1$/);
    // The list before the search stays until the search's answer comes.
    await paymentRows(page).filter({ hasText: 'BOB-1' }).waitFor({ state: 'detached' });
    assert.equal(await paymentRows(page).count(), 1);
    assert.match(await paymentRows(page).innerText(), /ADA-1/);
    await page.getByRole('link', { name: adaPayment }).click();

    const heading = page.getByRole('heading', { name: `Payment ${adaPayment}`, level: 1 });
    await focused(heading);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.getByText('ada@example.com').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Refund' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /refund/i }).count(), 0);
    assert.equal(
      await page.getByRole('link', { name: 'Back to payments' }).getAttribute('href'),
      '#payments?payment_reference=ADA-1',
    );

    const crafted = await fromPage(
      page,
      'POST',
      `/payments/${adaPayment}/refunds/`,
      { amount: '1.00' },
      {
        'idempotency-key': 'support-crafted-1',
      },
    );
    assert.equal(crafted.status, 403, JSON.stringify(crafted.body));
    assert.equal(crafted.body.error, 'forbidden');
    assert.deepEqual(await refundsOf(adaPayment), []);
  });

  it('finance previews and confirms a refund; a lost answer retried refunds once; the timeline and audit log show it', async () => {
    const { page, email } = await openAs('finance', `payments/${adaPayment}`);
    const amount = page.getByLabel('Amount to refund');
    assert.equal(await amount.inputValue(), '1217.40');
    await amount.fill('200');
    await page.getByRole('button', { name: 'Preview refund' }).click();
    await focused(page.getByRole('heading', { name: 'Check the refund' }));
    const preview = page.locator('.refund-preview dl');
    assert.match(
      await preview.innerText(),
      /Refund to the tenant\s+£200\.00\s+Of which rent\s+£200\.00\s+Of which fee\s+£0\.00/,
    );
    assert.match(
      await preview.innerText(),
      /Left to refund after it\s+£1,017\.40\s+The landlord’s payout loses\s+£200\.00/,
    );

    // The refund is made but its answer never reaches the page; Confirm again sends the same key.
    let lost = 0;
    await page.route('**/refunds/', async (route) => {
      lost++;
      await route.fetch();
      await route.abort('failed');
    });
    const confirm = page.getByRole('button', { name: 'Confirm refund of £200.00' });
    await confirm.dblclick();
    await page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();
    await page.unroute('**/refunds/');
    assert.equal(lost, 1, 'a double click sends one request');
    await confirm.click();
    await page.getByRole('status').filter({ hasText: 'Refunded £200.00.' }).waitFor();
    assert.deepEqual(await refundsOf(adaPayment), [{ amount_pence: 20000, status: 'succeeded' }]);

    const refund = page.locator('.timeline-refund');
    await refund.filter({ hasText: '£200.00' }).waitFor();
    // The amount field starts again at what is left, once the reloaded payment has rendered.
    await page.waitForFunction(
      (input) => (input as HTMLInputElement).value === '1017.40',
      await amount.elementHandle(),
    );
    assert.equal(await amount.inputValue(), '1017.40');
    // The platform's audit log (an admin's) names the person who refunded.
    const admin = await signedInPerson(t, {
      team: d.integratorId,
      email: 'auditor@acme.example',
      role: 'admin',
    });
    const log = await admin.get('/audit-log/');
    assert.equal(log.status, 200, JSON.stringify(log.body));
    const entries = log.body.data.filter(
      (entry: { action: string; target: { id: string } }) =>
        entry.action === 'payment.refund' && entry.target.id === adaPayment,
    );
    assert.deepEqual(
      entries.map((entry: { actor: { email: string; role: string } }) => [
        entry.actor.email,
        entry.actor.role,
      ]),
      [[email, 'finance']],
    );
  });

  it('Download CSV gets every payment of the search as a CSV file', async () => {
    const { page } = await openAs('finance', 'payments?status=failed');
    await paymentRows(page).first().waitFor();
    const link = page.getByRole('link', { name: /Download CSV/ });
    assert.equal(await link.getAttribute('href'), '/api/dashboard/payments/export.csv?status=failed');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.match(download.suggestedFilename(), /^payments-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    assert.match(lines[0]!, /^"payment_id","created_at","status"/);
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[1]!, new RegExp(`^"${bobDeclined}",[^,]*,"failed"`));
  });

  it('looks: home, search results, a payment’s page and a refund’s preview, at 375 px and 1280 px, light and dark', async () => {
    const found: string[] = [];
    for (const look of LOOKS) {
      const name = `${look.width}px ${look.colorScheme}`;
      const pictured = look.width === 1280 && look.colorScheme === 'light';
      const { page } = await openAs('finance', 'home', look);
      await page.getByRole('heading', { name: 'Arrears' }).waitFor();
      found.push(...(await lookProblems(page, look, `home, ${name}`)));
      if (pictured) await screenshot(page, 'home');

      await page
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Payments' })
        .click();
      await paymentRows(page).first().waitFor();
      found.push(...(await lookProblems(page, look, `search results, ${name}`)));
      if (pictured) await screenshot(page, 'payments');

      await page.getByRole('link', { name: lookPayment }).click();
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      found.push(...(await lookProblems(page, look, `payment page, ${name}`)));
      if (pictured) await screenshot(page, 'payment');

      await page.getByRole('button', { name: 'Preview refund' }).click();
      await page.getByRole('heading', { name: 'Check the refund' }).waitFor();
      found.push(...(await lookProblems(page, look, `refund preview, ${name}`)));
      if (pictured) await screenshot(page, 'refund');
      await page.context().close();
    }
    assertNoProblems(found);
  });

  it('the pages logged no errors', () => {
    assert.deepEqual(d.pageErrors, []);
  });
});
