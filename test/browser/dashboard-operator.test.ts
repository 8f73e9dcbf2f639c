/**
 * The operator console's pages in real headless Chromium, in a production-mode app (Stripe through its stand-in), so
 * that four eyes hold: integrators (suspend and its token refused, unsuspend, create, reissue), payout runs (approve
 * a landlord account, a run made by one operator admin that only a second can confirm), what operator support may
 * not do, the whole audit log narrowed to one integrator, system health, and every page's looks.
 */

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { enqueueJob } from '../../src/platform/jobs/queue.ts';
import type { Role } from '../../src/shared/roles.ts';
import { integrationApi, UNLIMITED } from '../support/api-client.ts';
import {
  assertNoProblems,
  DashboardBrowser,
  focused,
  LOOKS,
  type Look,
  loaded,
  lookProblems,
  screenshot,
} from '../support/dashboard-browser.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runJobs, type TestApp } from '../support/helpers.ts';
import { whoami } from '../support/operation-tests.ts';
import { clientOf } from '../support/payment-client.ts';
import { confirmationToken, stripeConfig } from '../support/stripe-app.ts';
import { StripeStandIn } from '../support/stripe-server.ts';

let d: DashboardBrowser;
let t: TestApp;
let stand: StripeStandIn;
/** A platform of this app besides the harness's own, with tenants who paid. */
let northwind: { id: string; token: string };

/** A tenant of Northwind who paid £1200.00 by card, to a landlord account. */
async function paidTenant(userId: number, reference: string, accountNumber: string): Promise<void> {
  const api = integrationApi(t, northwind);
  const email = `tenant${userId}@example.com`;
  await api.onboardOk([
    userBody({
      user_id: userId,
      email,
      tenant: [tenancyBody({ payment_reference: reference, recipient_bank_account_number: accountNumber })],
    }),
  ]);
  const session = await api.loginOk(email);
  const paid = await clientOf(t, session.token).pay({
    confirmation_token: confirmationToken(stand, 'pm_card_visa'),
  });
  assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
}

before(async () => {
  stand = await StripeStandIn.start();
  d = await DashboardBrowser.start(stripeConfig(stand, 'production'));
  t = d.t;
  stand.now = () => t.clock.now().getTime();
  northwind = await t.createIntegrator({ name: 'Northwind Homes', ...UNLIMITED });
  await paidTenant(1, 'NW-1', '12345678');
  await paidTenant(2, 'NW-2', '87654321');
  // Stripe makes the funds available two days after the charge; the settlement jobs read when.
  await runJobs(t);
  t.clock.advance(2 * 86_400_000);
});

after(async () => {
  await d?.close();
  await stand?.close();
});

/** One of the operator's staff signed in, their cookie in the page's context: answers their email. */
async function signedInAs(page: Page, role: Role): Promise<string> {
  return (await d.signedInAs(page, role, null)).email;
}

/** A page signed in as `role`, at a place of the dashboard once it has loaded. */
async function openAs(role: Role, place: string, look?: Look): Promise<{ page: Page; email: string }> {
  const page = await d.openPage(look);
  const email = await signedInAs(page, role);
  await d.goTo(page, place, email);
  return { page, email };
}

const main = (page: Page) => page.getByRole('main');

/** Waits until the table's rows show the new list: each cell of a column starts with `text`. */
async function everyCellStartsWith(page: Page, column: number, text: string): Promise<void> {
  await page.waitForFunction(
    ([nth, start]) => {
      const cells = [...document.querySelectorAll(`tbody tr td:nth-child(${nth})`)];
      return cells.length > 0 && cells.every((cell) => cell.textContent?.startsWith(String(start)));
    },
    [column, text] as const,
  );
}

/** The run made by the first operator admin, for the later tests. */
let runId: string;

describe('the operator console', () => {
  it('the operator admin suspends an integrator: its server token is refused at once; unsuspend restores it', async () => {
    // Used once, so the node has the token in its cache: the suspension must reach it there too.
    assert.equal((await whoami(t, northwind.token)).status, 200);
    const { page } = await openAs('operator_admin', 'integrators');
    const row = page.getByRole('row', { name: /Northwind Homes/ });
    await row.getByText('Active').waitFor();
    await row.getByRole('cell', { name: '£2,400.00' }).waitFor();
    await screenshot(page, 'operator-integrators');
    await row.getByRole('link', { name: 'Northwind Homes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Northwind Homes' }).waitFor();

    await page.getByRole('button', { name: 'Suspend Northwind Homes' }).click();
    await main(page)
      .getByText(/Its server tokens stop working on the Integration API at once/)
      .waitFor();
    await page.getByRole('button', { name: 'Suspend Northwind Homes' }).click();
    await page.getByRole('status').filter({ hasText: 'Northwind Homes is suspended' }).waitFor();
    await main(page).locator('.facts').getByText('Suspended').waitFor();
    const refused = await whoami(t, northwind.token);
    assert.deepEqual([refused.status, refused.body.error], [403, 'integrator_suspended']);

    await page.getByRole('button', { name: 'Unsuspend Northwind Homes' }).click();
    await page.getByRole('button', { name: 'Unsuspend Northwind Homes' }).click();
    await main(page).locator('.facts').getByText('Active').waitFor();
    assert.equal((await whoami(t, northwind.token)).status, 200);
  });

  it('creates an integrator (its token shown once, and working), then reissues the token: the old one ends', async () => {
    const { page } = await openAs('operator_admin', 'integrators');
    await page.getByRole('link', { name: 'Create an integrator' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create an integrator' }).waitFor();
    await page.getByRole('button', { name: 'Create integrator' }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter the platform’s name.' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Fresh Lets');
    await page.getByRole('button', { name: 'Create integrator' }).click();
    const tokenField = page.getByLabel('Server token of Fresh Lets');
    const token = await tokenField.inputValue();
    await focused(tokenField);
    assert.ok(await page.getByLabel('Webhook signing secret of Fresh Lets').inputValue());
    assert.equal((await whoami(t, token)).status, 200);

    await page.getByRole('link', { name: 'Go to Fresh Lets' }).click();
    await page.getByRole('heading', { level: 1, name: 'Fresh Lets' }).waitFor();
    await page.getByRole('button', { name: 'Reissue server token' }).click();
    await main(page)
      .getByText(/Every server token it has stops working at once/)
      .waitFor();
    await page.getByRole('button', { name: 'Reissue server token' }).click();
    const reissued = await page.getByLabel('New server token of Fresh Lets').inputValue();
    assert.notEqual(reissued, token);
    assert.equal((await whoami(t, token)).status, 401);
    assert.equal((await whoami(t, reissued)).status, 200);
  });

  it('four eyes: the admin who makes a run is told why they cannot confirm it; a second admin confirms it', async () => {
    const first = await openAs('operator_admin', 'payout-runs/payees');
    const { page } = first;
    const account = page.getByRole('row', { name: /12-34-56 12345678/ });
    await account.getByRole('cell', { name: '£1,200.00' }).waitFor();
    await screenshot(page, 'operator-payees');
    await account.getByRole('button', { name: /^Approve/ }).click();
    await main(page)
      .getByText(/Runs pay it from the next one on/)
      .waitFor();
    await account.getByRole('button', { name: /^Approve/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /12-34-56 12345678\) is approved/ })
      .waitFor();
    await page.getByRole('row', { name: /12-34-56 87654321/ }).waitFor();

    await page.getByRole('link', { name: 'All payout runs' }).click();
    await page.getByRole('button', { name: 'Make a payout run' }).click();
    await page.getByRole('heading', { level: 1, name: /Payout run prun_/ }).waitFor();
    runId = /#payout-runs\/(prun_\w+)/.exec(page.url())?.[1] ?? '';
    assert.ok(runId, page.url());
    await page.getByRole('row', { name: /NW-1/ }).getByRole('cell', { name: '£1,200.00' }).waitFor();
    const held = page.getByRole('table', { name: /held back/ }).getByRole('row', { name: /NW-2/ });
    await held.getByText(/has not been paid before: approve it first/).waitFor();
    await page
      .getByTestId('confirm-refusal')
      .getByText(/You made this payout run, so you cannot confirm it/)
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Confirm the run' }).count(), 0);
    await screenshot(page, 'operator-payout-run');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the bank file (CSV)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `${runId}.csv`);
    const file = fs.readFileSync(String(await download.path()), 'utf8');
    assert.match(file, /"123456","12345678",.*"1200\.00","NW-1"/);

    const second = await openAs('operator_admin', `payout-runs/${runId}`);
    await second.page.getByRole('button', { name: 'Confirm the run' }).click();
    await main(second.page)
      .getByText(/Confirm this run only once the bank has its file/)
      .waitFor();
    await second.page.getByRole('button', { name: 'Confirm the run' }).click();
    await main(second.page).locator('.facts .status-confirmed').waitFor();
    await second.page.getByRole('row', { name: /NW-1/ }).getByText('Paid').waitFor();
    const [stored] = await t.db.query<{ status: string }>('SELECT status FROM payout_runs WHERE id = $1', [
      runId,
    ]);
    assert.equal(stored?.status, 'confirmed');
  });

  it('operator support sees no change buttons, and a crafted suspend from their page is refused 403', async () => {
    const { page } = await openAs('operator_support', 'integrators');
    await page.getByRole('link', { name: 'Northwind Homes' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Create an integrator' }).count(), 0);
    await page.getByRole('link', { name: 'Northwind Homes' }).click();
    await main(page).getByText('Payments succeeded').waitFor();
    for (const name of [/Suspend/, /Reissue/]) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, String(name));
    }
    await page.goto(`${d.base}/dashboard#payout-runs`);
    await page.getByRole('link', { name: runId }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Make a payout run' }).count(), 0);
    await page.goto(`${d.base}/dashboard#payout-runs/payees`);
    await page.getByRole('row', { name: /12-34-56 87654321/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Approve/ }).count(), 0);

    const answer = await page.evaluate(async (id) => {
      const me = await (await fetch('/api/dashboard/me/')).json();
      const response = await fetch(`/api/dashboard/operator/integrators/${id}/suspend/`, {
        method: 'POST',
        headers: { 'x-csrf-token': me.csrf_token },
      });
      return { status: response.status, body: await response.json() };
    }, northwind.id);
    assert.deepEqual([answer.status, answer.body.error], [403, 'forbidden']);
    assert.equal((await whoami(t, northwind.token)).status, 200);
  });

  it('the whole audit log, every integrator’s and the operator’s, narrowed to one integrator and one action', async () => {
    const { page } = await openAs('operator_support', 'audit-log');
    const rows = page.getByRole('table').locator('tbody tr');
    await rows.first().waitFor();
    const scopes = await rows.locator('td:nth-child(2)').allInnerTexts();
    assert.ok(
      scopes.some((scope) => scope === 'Operator'),
      scopes.join(' | '),
    );
    assert.ok(
      scopes.some((scope) => scope.startsWith('Northwind Homes')),
      scopes.join(' | '),
    );

    await page.getByLabel('Integrator').selectOption(northwind.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(new RegExp(`#audit-log\\?integrator_id=${northwind.id}$`));
    await page.getByRole('link', { name: 'Show everything' }).waitFor();
    await everyCellStartsWith(page, 2, 'Northwind Homes');
    const actions = await rows.locator('td:nth-child(4)').allInnerTexts();
    for (const action of ['integrator.suspend', 'integrator.unsuspend', 'integrator.create']) {
      assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
    }

    await page.getByLabel('Action').fill('integrator.suspend');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/action=integrator\.suspend$/);
    await everyCellStartsWith(page, 4, 'integrator.suspend');
    await screenshot(page, 'operator-audit-log');
    const suspended = await rows.locator('td:nth-child(3)').allInnerTexts();
    assert.equal(suspended.length, 1);
    assert.match(suspended[0] ?? '', /operator-admin\d+@acme\.example\s+Operator admin/);
  });

  it('system health shows the job queue by kind, the database and the workers', async () => {
    await enqueueJob(t.db, t.clock, 'test.report', { n: 1 });
    t.clock.advance(90_000);
    const { page } = await openAs('operator_support', 'health');
    const row = page.getByRole('row', { name: /test\.report/ });
    await row.waitFor();
    assert.deepEqual(
      await row
        .locator('td')
        .allInnerTexts()
        .then((cells) => cells.slice(0, 4)),
      ['1', '1', '0', '0'],
    );
    await row.getByText('1 min 30 s ago').waitFor();
    await page.getByTestId('database').getByText('Reachable').waitFor();
    await main(page)
      .getByText(/No job worker has a heartbeat/)
      .waitFor();
    await screenshot(page, 'operator-health');
  });

  for (const look of LOOKS) {
    it(`${look.width} px, ${look.colorScheme}: every console page`, async () => {
      const { page } = await openAs('operator_admin', 'integrators', look);
      const found: string[] = [];
      const check = async (place: string, ready: () => Promise<unknown>) => {
        await page.goto(`${d.base}/dashboard#${place}`);
        await ready();
        await loaded(page);
        found.push(...(await lookProblems(page, look, place)));
      };
      await check('integrators', () => page.getByRole('link', { name: 'Northwind Homes' }).waitFor());
      await check(`integrators/${northwind.id}`, async () => {
        await page.getByRole('button', { name: 'Suspend Northwind Homes' }).click();
        await page.getByRole('button', { name: 'Keep it active' }).waitFor();
      });
      await check('integrators/new', () => page.getByLabel('Name', { exact: true }).waitFor());
      await check('payout-runs', () => page.getByRole('link', { name: runId }).waitFor());
      await check(`payout-runs/${runId}`, () => page.getByRole('row', { name: /NW-1/ }).waitFor());
      await check('payout-runs/payees', () => page.getByRole('button', { name: /Approve/ }).waitFor());
      await check('health', () => page.getByRole('row', { name: /test\.report/ }).waitFor());
      await check('audit-log', () => page.getByRole('table').locator('tbody tr').first().waitFor());
      assertNoProblems(found);
    });
  }

  it('no page logged an error (a CSP refusal, an exception)', () => {
    assert.deepEqual(d.pageErrors, []);
  });
});
