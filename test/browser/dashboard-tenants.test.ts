/**
 * The dashboard's tenants, payouts and settings pages in real headless Chromium: a tenant found and their page
 * opened, a tenancy's ledger chart against the API, schedule moves by finance (and none for support), KYC documents
 * for support only, a fee changed and a bad one refused, the rent held back with why; axe-core on each page at a
 * phone's and a desktop's width, light and dark.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { longDate } from '../../src/shared/display.ts';
import { type Api, integrationApi, operatorRequest, UNLIMITED } from '../support/api-client.ts';
import {
  assertNoProblems,
  DashboardBrowser,
  focused,
  LOOKS,
  type Look,
  lookChecker,
} from '../support/dashboard-browser.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runJobs, type TestApp } from '../support/helpers.ts';
import { cardPayment } from '../support/operation-tests.ts';
import { clientOf } from '../support/payment-client.ts';
import { documentHost, lastAudit, tenantWithSchedule } from '../support/tenant-pages.ts';

let d: DashboardBrowser;
let t: TestApp;
let host: Awaited<ReturnType<typeof documentHost>>;
let scheduleId: string;

/** A bank account a payout run cannot pay (not a UK one). */
const NOT_UK = {
  recipient_bank_sort_code: 'DEUTDEFF',
  recipient_bank_account_number: 'DE89370400440532013000',
};

before(async () => {
  host = await documentHost();
  d = await DashboardBrowser.start({ allowPrivateDocumentHosts: true });
  t = d.t;
  await t.app.ctx.integrators.update(d.integratorId, UNLIMITED, SYSTEM_ACTOR);
  const token = await t.app.ctx.integrators.issueServerToken(d.integratorId, 0, SYSTEM_ACTOR);
  const api: Api = integrationApi(t, { id: d.integratorId, token });
  // Ada: rent due since January, a schedule on a saved card, one payment, her agreement and a KYC photo.
  await api.onboardOk(
    userBody({
      user_id: 1,
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      kyc: { photo: `${host.origin}/photo.png`, pii_front: null, pii_back: null, status: 'pending' },
      tenant: [tenancyBody({ payment_reference: 'ADA-1', agreement: `${host.origin}/agreement.pdf` })],
    }),
  );
  const ada = await tenantWithSchedule(t, api, 'ada@example.com', 'ADA-1');
  scheduleId = ada.scheduleId;
  await cardPayment(t, ada.client);
  // Grace paid rent to a landlord whose account a run cannot pay: it is held back.
  await api.onboardOk(
    userBody({
      user_id: 2,
      email: 'grace@example.com',
      first_name: 'Grace',
      last_name: 'Hopper',
      tenant: [tenancyBody({ payment_reference: 'GRACE-1', ...NOT_UK })],
    }),
  );
  await cardPayment(t, clientOf(t, (await api.loginOk('grace@example.com')).token));
  const run = await operatorRequest(t, 'POST', '/payouts/runs', {});
  assert.equal(run.status, 201, JSON.stringify(run.body));
  await runJobs(t);
});

after(async () => {
  await d?.close();
  await host?.close();
});

/** A page signed in as a person of `role` at `place`; answers the page and the person's email. */
async function openAs(role: Parameters<DashboardBrowser['signedInAs']>[1], place: string, look?: Look) {
  const page = await d.openPage(look);
  const { email } = await d.signedInAs(page, role);
  await d.goTo(page, place, email);
  return { page, email };
}

/** A dashboard API request from the page itself, with its session and CSRF token (as a crafted request would be). */
function fromPage(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const me = await (await fetch('/api/dashboard/me/')).json();
      const response = await fetch(`/api/dashboard${path}`, {
        method,
        headers: {
          'x-csrf-token': me.csrf_token,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    { method, path, body },
  );
}

/** The stored document of `kind` on Ada's page. */
async function documentId(kind: string): Promise<string> {
  const record = await t.app.ctx.tenants.get(d.integratorId, 1);
  const found = record?.documents.find((document) => document.kind === kind);
  assert.ok(found, kind);
  return found.id;
}

describe('dashboard tenants, payouts and settings pages', () => {
  it('a tenant found by name, their page, and the ledger chart’s points are the API’s balance series', async () => {
    const { page } = await openAs('admin', 'tenants');
    await page.getByRole('heading', { name: 'Tenants', level: 1 }).waitFor();
    await page.getByLabel('Find a tenant').fill('lovel');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('table', { name: /^Tenants matching “lovel”/ }).waitFor();
    assert.match(page.url(), /#tenants\?q=lovel$/);
    // The list before the search stays until the found page comes.
    await page.getByRole('link', { name: 'Grace Hopper' }).waitFor({ state: 'detached' });
    const rows = page.getByRole('table', { name: /^Tenants matching/ }).locator('tbody tr');
    assert.equal(await rows.count(), 1);
    await rows.getByRole('link', { name: 'Ada Lovelace' }).click();
    const heading = page.getByRole('heading', { name: 'Ada Lovelace', level: 1 });
    await focused(heading);
    await page.getByRole('heading', { name: 'ADA-1', level: 3, exact: true }).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: /^visa ending 4242/i })
      .waitFor();

    await page.getByRole('link', { name: 'Ledger and balance of ADA-1' }).click();
    await focused(page.getByRole('heading', { name: 'Ledger of ADA-1', level: 1 }));
    assert.match(page.url(), /#tenants\/1\/ADA-1$/);
    // The heading shows at once; the chart once the ledger has come.
    await page.locator('.chart .point').first().waitFor();
    const points = await page
      .locator('.chart .point[data-series="Balance"]')
      .evaluateAll((found) => found.map((point) => [point.dataset.label, Number(point.dataset.value)]));
    const ledger = await fromPage(page, 'GET', '/tenancies/ADA-1/ledger/');
    assert.equal(ledger.status, 200);
    const series = ledger.body.balance_series as { date: string; balance: string }[];
    assert.ok(series.length >= 3, JSON.stringify(series));
    assert.deepEqual(
      points,
      series.map((point) => [longDate(point.date), Number(point.balance)]),
    );
    const entries = page.getByRole('table', { name: /^Every entry/ }).locator('tbody tr');
    assert.equal(await entries.count(), ledger.body.entries.length);
  });

  it('finance pauses a schedule with a reason; the page and the audit log name them and the reason', async () => {
    const { page, email } = await openAs('finance', 'tenants/1');
    const card = page.getByRole('region', { name: /^ADA-1: / });
    await card.getByRole('heading', { name: 'ADA-1: Active' }).waitFor();

    // Canceling asks first; keeping the schedule changes nothing.
    await card.getByRole('button', { name: 'Cancel the schedule of ADA-1' }).click();
    await card.getByText('Cancel the schedule of ADA-1 for good?').waitFor();
    await card.getByRole('button', { name: 'Keep schedule' }).click();
    await card.getByRole('heading', { name: 'ADA-1: Active' }).waitFor();

    await card.getByRole('button', { name: 'Pause the schedule of ADA-1' }).click();
    const reason = card.getByLabel('Reason');
    await focused(reason);
    await card.getByRole('button', { name: 'Pause schedule' }).click();
    await card.getByRole('alert').filter({ hasText: 'Say why it is paused' }).waitFor();
    await reason.fill('Tenant in hospital until April');
    await card.getByRole('button', { name: 'Pause schedule' }).click();
    await page.getByRole('status').filter({ hasText: 'The schedule of ADA-1 is paused.' }).waitFor();
    await focused(card.getByRole('heading', { name: 'ADA-1: Paused' }));
    await card.getByText('Tenant in hospital until April').waitFor();

    const entry = await lastAudit(t.db, d.integratorId, 'schedule.pause');
    assert.deepEqual([entry.actor.email, entry.actor.role, entry.target_id], [email, 'finance', scheduleId]);
    assert.equal((entry.summary.after as { reason: string }).reason, 'Tenant in hospital until April');
    const admin = await openAs('admin', 'audit-log');
    await admin.page
      .getByRole('row')
      .filter({ hasText: 'schedule.pause' })
      .filter({ hasText: email })
      .waitFor();

    await card.getByRole('button', { name: 'Resume the schedule of ADA-1' }).click();
    await card.getByLabel('Reason').fill('Back home');
    await card.getByRole('button', { name: 'Resume schedule' }).click();
    await card.getByRole('heading', { name: 'ADA-1: Active' }).waitFor();
  });

  it('support sees no schedule buttons, and a crafted pause request from their page is refused 403', async () => {
    const { page } = await openAs('support', 'tenants/1');
    await page.getByRole('heading', { name: 'ADA-1: Active' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /the schedule of/ }).count(), 0);
    const answer = await fromPage(page, 'POST', `/schedules/${scheduleId}/pause/`, { reason: 'crafted' });
    assert.deepEqual([answer.status, answer.body.error], [403, 'forbidden']);
    const tenant = await fromPage(page, 'GET', '/tenants/1/');
    assert.equal(tenant.body.schedules[0].status, 'active');
  });

  it('support opens a KYC photo (audited, naming them); finance sees no KYC, and a crafted request gets 403', async () => {
    const support = await openAs('support', 'tenants/1');
    const documents = support.page.getByRole('region', { name: 'Documents' });
    await documents.getByRole('row', { name: /^Photo/ }).waitFor();
    const [popup] = await Promise.all([
      support.page.waitForEvent('popup'),
      documents.getByRole('link', { name: /^Open photo/ }).click(),
    ]);
    await popup.waitForLoadState();
    const entry = await lastAudit(t.db, d.integratorId, 'kyc_document.view');
    assert.deepEqual([entry.actor.email, entry.target_id], [support.email, await documentId('photo')]);

    const finance = await openAs('finance', 'tenants/1');
    const shown = finance.page.getByRole('region', { name: 'Documents' });
    await shown.getByRole('row', { name: /^Tenancy agreement/ }).waitFor();
    await finance.page.getByText('shown to admins and support only').waitFor();
    assert.equal(await shown.getByRole('row', { name: /^Photo/ }).count(), 0);
    const crafted = await fromPage(finance.page, 'GET', `/documents/${await documentId('photo')}/`);
    assert.deepEqual([crafted.status, crafted.body.error], [403, 'forbidden']);
  });

  it('an admin changes a fee in Settings; a bad value gets its field error and changes nothing', async () => {
    const { page } = await openAs('admin', 'settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Team', exact: true }).first().waitFor();
    const card = page.getByRole('group', { name: 'Card' });
    await card.getByLabel('Percent').fill('1.5');
    await card.getByLabel('Fixed, in pounds').fill('0.20');
    await page.getByRole('button', { name: 'Save fees' }).click();
    await page.getByRole('status').filter({ hasText: 'Fees saved.' }).waitFor();
    const saved = await fromPage(page, 'GET', '/settings/');
    assert.deepEqual(saved.body.fees, { card: { percent: '1.50', fixed: '0.20' } });
    assert.equal(await card.getByLabel('Percent').inputValue(), '1.50');

    await card.getByLabel('Percent').fill('lots');
    await page.getByRole('button', { name: 'Save fees' }).click();
    const error = page.locator('#fee-card-percent-error');
    await error.waitFor();
    await focused(card.getByLabel('Percent'));
    assert.equal(await card.getByLabel('Percent').getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await fromPage(page, 'GET', '/settings/')).body, saved.body);
  });

  it('the payouts waiting for confirmation, and the rent held back with why and what unblocks it', async () => {
    const { page } = await openAs('finance', 'payouts?status=created');
    const table = page.getByRole('table', { name: /^Waiting for confirmation/ });
    await table.getByRole('row').filter({ hasText: 'ADA-1' }).getByText('£1,200.00').waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), 'created');
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Show payouts' }).click();
    await page.getByRole('status').filter({ hasText: 'No payouts match these filters.' }).waitFor();
    assert.match(page.url(), /#payouts\?status=paid$/);

    await page.getByRole('link', { name: 'Held back' }).click();
    await focused(page.getByRole('heading', { name: 'Rent held back', level: 1 }));
    const held = (await fromPage(page, 'GET', '/payouts/held/')).body.data;
    const grace = held.find((hold: { payment_reference: string }) => hold.payment_reference === 'GRACE-1');
    assert.equal(grace?.kind, 'payee_not_payable');
    const row = page.getByRole('row').filter({ hasText: 'GRACE-1' });
    await row.getByText('Landlord’s account cannot be paid').waitFor();
    await row.getByText(grace.reason).waitFor();
    await row.getByText(/Onboard the tenancy again/).waitFor();
  });
});

/** Each page and state of the tenants, payouts and settings pages in a look. */
async function lookViolations(look: Look): Promise<string[]> {
  const found: string[] = [];
  const { page } = await openAs('admin', 'tenants', look);
  const check = lookChecker(page, look, found);
  await page.getByRole('link', { name: 'Ada Lovelace' }).waitFor();
  await check('tenants search', 'tenants');

  await page.getByRole('link', { name: 'Ada Lovelace' }).click();
  await page.getByRole('button', { name: 'Pause the schedule of ADA-1' }).click();
  await page.getByRole('button', { name: 'Pause schedule' }).click();
  await page.getByRole('alert').filter({ hasText: 'Say why' }).waitFor();
  await check('tenant page, a pause asking for its reason', 'tenant');

  await page.getByRole('link', { name: 'Ledger and balance of ADA-1' }).click();
  await page.locator('.chart .point').first().waitFor();
  await page.getByText('The data as a table').click();
  await page.getByRole('region', { name: /: the data$/ }).waitFor();
  await check('ledger, the chart’s data as a table', 'ledger');

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Payouts' }).click();
  await page.getByRole('row').filter({ hasText: 'ADA-1' }).waitFor();
  await check('payouts', 'payouts');
  await page.getByRole('link', { name: 'Held back' }).click();
  await page.getByRole('row').filter({ hasText: 'GRACE-1' }).waitFor();
  await check('held payouts', 'payouts-held');

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Days before a due date').fill('365');
  await page.getByRole('button', { name: 'Save reminders' }).click();
  await page.locator('#reminder-days-error').waitFor();
  await check('settings, a field error', 'settings');
  return found;
}

describe('tenants, payouts and settings pages: WCAG 2.2 A/AA (axe-core) at 375 px and 1280 px, light and dark', () => {
  for (const look of LOOKS) {
    it(`${look.width} px, ${look.colorScheme}: tenants, tenant, ledger, payouts, held, settings`, async () => {
      assertNoProblems(await lookViolations(look));
    });
  }

  it('no page logged an error (a CSP refusal, an exception)', () => {
    assert.deepEqual(d.pageErrors, []);
  });
});
