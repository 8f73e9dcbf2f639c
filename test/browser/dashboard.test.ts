/**
 * The dashboard's pages in real headless Chromium against the app on a port of its own (its public URL is the
 * origin the browser uses, so the Origin checks and WebAuthn's relying party hold): set-up from an invite with an
 * authenticator app or a passkey (Chromium's virtual authenticator), sign-in both ways, the developer pages, the
 * audit log, a support person's view and the server's refusal, a session ending, and axe-core on every page at a
 * phone's and a desktop's width in light and dark. The server's clock is a fake one; the browser's is real.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { totpCode, totpStep } from '../../src/people/totp.ts';
import type { Role } from '../../src/shared/roles.ts';
import {
  DashboardBrowser,
  focused,
  LOOKS,
  type Look,
  loaded,
  lookChecker,
  signedInHeader,
} from '../support/dashboard-browser.ts';
import { PASSWORD, signedInPerson } from '../support/dashboard-client.ts';
import { runJobs, type TestApp } from '../support/helpers.ts';
import { Receiver } from '../support/webhook-receiver.ts';

let d: DashboardBrowser;
let t: TestApp;
let base: string;
let integratorId: string;
/** The platform's webhook receiver on this machine. */
let receiver: Receiver;

before(async () => {
  d = await DashboardBrowser.start({ allowPrivateWebhookHosts: true });
  ({ t, base, integratorId } = d);
  receiver = await Receiver.start();
});

after(async () => {
  await d?.close();
  await receiver?.close();
});

const openPage = (look?: Look): Promise<Page> => d.openPage(look);
const newEmail = (role: string): string => d.newEmail(role);

/** An invite to the platform's team, as rentpay itself makes one: the token of its set-up link. */
async function invite(email: string, role: Role): Promise<string> {
  const invited = await t.app.ctx.people.invite(SYSTEM_ACTOR, { team: integratorId, email, role });
  const token = invited.link.split('#invite=')[1];
  assert.ok(token, invited.link);
  return token;
}

/** A person signed in through the API, their session cookie put in the page's context: answers their email. */
async function signedInAs(page: Page, role: Role): Promise<string> {
  return (await d.signedInAs(page, role)).email;
}

/** The code the authenticator app shows now, by the server's clock. */
function codeNow(secret: string): string {
  return totpCode(secret, totpStep(t.clock.now()));
}

/** The set-up page for an invite, filled in with an authenticator app and submitted; answers the app's secret. */
async function setUpWithApp(page: Page, token: string, email: string): Promise<string> {
  await page.goto(`${base}/dashboard/setup#invite=${token}`);
  await page.getByText(email, { exact: true }).waitFor();
  await page.getByLabel('Choose a password').fill(PASSWORD);
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
  assert.match(secret, /^[A-Z2-7]{32}$/);
  const qr = page.getByRole('img', { name: /QR code for your authenticator app/ });
  assert.match(String(await qr.getAttribute('src')), /^data:image\/svg\+xml,/);
  assert.ok(await qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0));
  await page.getByLabel('6-digit code from the app').fill(codeNow(secret));
  await page.getByRole('button', { name: 'Set up and sign in' }).click();
  await signedInHeader(page, email);
  return secret;
}

/** Chromium's virtual authenticator (a platform one, with user verification), for passkeys. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

async function auditActions(email: string): Promise<string[]> {
  const rows = await t.db.query<{ action: string }>(
    `SELECT action FROM audit_log WHERE actor->>'email' = $1 ORDER BY seq`,
    [email],
  );
  return rows.map((row) => row.action);
}

describe('dashboard pages', () => {
  it('set-up with an authenticator app, then the developer pages: a rotated webhook secret is shown once and audited', async () => {
    const email = newEmail('admin');
    const token = await invite(email, 'admin');
    const page = await openPage();
    await setUpWithApp(page, token, email);
    assert.equal(new URL(page.url()).pathname, '/dashboard');

    // An admin starts on the home page and moves to the developer pages.
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Developers' })
      .click();
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    const secret = page.getByLabel('New signing secret');
    await secret.waitFor();
    assert.match(await secret.inputValue(), /^whsec_/);
    await page.getByText('rentpay shows it only this once').waitFor();
    await focused(secret);

    // Shown once: the page opened again has no secret to show.
    await page.reload();
    await page.getByRole('button', { name: 'Rotate signing secret' }).waitFor();
    assert.equal(await page.getByLabel('New signing secret').count(), 0);
    await page.getByText('Previous secret signs until').waitFor();

    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    // The entry names the person by their email, with what they did to what.
    const row = page.getByRole('row').filter({ hasText: 'webhook_secret.rotate' });
    await row.filter({ hasText: email }).waitFor();
    assert.equal(await row.count(), 1);
    assert.match(await row.innerText(), new RegExp(`${integratorId}`));
    await focused(page.getByRole('heading', { name: 'Audit log', level: 1 }));
    assert.ok((await auditActions(email)).includes('webhook_secret.rotate'));
  });

  it('set-up with a passkey (a virtual authenticator), sign out, then sign in with the passkey alone', async () => {
    const email = newEmail('developer');
    const token = await invite(email, 'developer');
    const page = await openPage();
    await addVirtualAuthenticator(page);
    await page.goto(`${base}/dashboard/setup#invite=${token}`);
    await page.getByText(email, { exact: true }).waitFor();
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByRole('radio', { name: /Passkey/ }).check();
    await page.getByRole('heading', { name: 'Create a passkey' }).waitFor();
    await page.getByRole('button', { name: 'Create passkey and sign in' }).click();
    await signedInHeader(page, email);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/login`);
    await page.getByRole('status').filter({ hasText: 'You have signed out.' }).waitFor();
    // Signed out for real: the dashboard sends the browser back here.
    await page.goto(`${base}/dashboard`);
    await page.waitForURL(`${base}/dashboard/login`);

    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await signedInHeader(page, email);
    const [session] = await t.db.query<{ second_factor: string }>(
      `SELECT s.second_factor FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
        WHERE u.email = $1 AND s.ended_at IS NULL`,
      [email],
    );
    assert.equal(session?.second_factor, 'passkey');
  });

  it('sign-in with email, password and code, by keyboard alone; a wrong code is refused in words tied to the form', async () => {
    const email = newEmail('admin');
    const person = await signedInPerson(t, { team: integratorId, email, role: 'admin' });
    const page = await openPage();
    await page.goto(`${base}/dashboard/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    // Empty fields: each error is on its field, announced, and the first field is focused.
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('#email-error').waitFor();
    const emailField = page.getByLabel('Email');
    assert.equal(await emailField.getAttribute('aria-invalid'), 'true');
    assert.equal(await emailField.getAttribute('aria-describedby'), 'email-error');
    assert.equal(await page.locator('#email-error').getAttribute('role'), 'alert');
    await focused(emailField);

    t.clock.advance(30_000);
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    await page.keyboard.type(codeNow(person.totpSecret) === '000000' ? '111111' : '000000');
    await page.keyboard.press('Enter');
    // The alert takes the focus in an effect: typing the next code before it moves could lose it.
    await focused(page.getByRole('alert').filter({ hasText: 'The email, password or code is not right.' }));
    assert.equal(await page.getByLabel('Code from your authenticator app').inputValue(), '');

    await page.getByLabel('Code from your authenticator app').focus();
    await page.keyboard.type(codeNow(person.totpSecret));
    await page.keyboard.press('Enter');
    await signedInHeader(page, email);

    // The sections by keyboard: a link followed moves focus to its page's heading.
    const team = page.getByRole('link', { name: 'Team' });
    await team.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
    assert.equal(await team.getAttribute('aria-current'), 'page');
    await page.waitForFunction(() => document.activeElement?.textContent === 'Team');
    await page.getByRole('row').filter({ hasText: email }).waitFor();
  });

  it('a team invite from the dashboard: the link is shown once and works on the set-up page', async () => {
    const page = await openPage();
    await signedInAs(page, 'admin');
    await page.goto(`${base}/dashboard#team`);
    const email = newEmail('finance');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('finance');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByLabel(`Set-up link for ${email}`).inputValue();
    assert.match(link, new RegExp(`^${base}/dashboard/setup#invite=rpi_`));
    await page.getByRole('row').filter({ hasText: email }).getByText('Invited').waitFor();

    // Change the role, then remove them (after a question).
    await page.getByLabel(`Role of ${email}`).selectOption('support');
    await page.getByRole('button', { name: `Change role of ${email}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${email} is now Support.` })
      .waitFor();
    await page.getByRole('button', { name: `Remove ${email}` }).click();
    await page.getByText(`Remove ${email}? They are signed out everywhere.`).waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('row').filter({ hasText: email }).getByText('Removed').waitFor();

    const other = await openPage();
    await other.goto(link);
    await other.getByRole('alert').filter({ hasText: 'This set-up link does not work' }).waitFor();
  });

  it('the webhook URL set, a test event’s failed attempt shown, then redelivered and delivered', async () => {
    const page = await openPage();
    await signedInAs(page, 'developer');
    await page.goto(`${base}/dashboard#developers`);
    await page.getByLabel('Webhook URL').fill('not a url');
    await page.getByRole('button', { name: 'Save URL' }).click();
    const urlError = page.locator('#webhook-url-error');
    await urlError.waitFor();
    assert.equal(
      await page.getByLabel('Webhook URL').getAttribute('aria-describedby'),
      'webhook-url-hint webhook-url-error',
    );
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook URL saved.' }).waitFor();
    await page.getByRole('definition').filter({ hasText: receiver.url }).waitFor();

    receiver.respond = () => ({ status: 500, body: 'down for a moment' });
    await page.getByRole('button', { name: 'Send test event' }).click();
    const sent = await page
      .getByRole('status')
      .filter({ hasText: /^Test event evt_\w+ sent/ })
      .innerText();
    const eventId = sent.match(/evt_\w+/)?.[0];
    assert.ok(eventId, sent);
    await runJobs(t);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByRole('row').filter({ hasText: eventId });
    await row.getByText('HTTP 500').waitFor();
    await row.getByRole('button', { name: 'ping' }).click();
    const attempts = page.getByRole('table', { name: 'Delivery attempts' });
    await attempts.getByRole('row').filter({ hasText: 'Failed; retried' }).getByText('HTTP 500').waitFor();

    receiver.respond = () => ({ status: 200, body: 'ok' });
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('status').filter({ hasText: 'Sent again' }).waitFor();
    await runJobs(t);
    await page.getByRole('button', { name: 'Close' }).click();
    await row.getByRole('button', { name: 'ping' }).click();
    await attempts.getByRole('row').filter({ hasText: 'Delivered' }).getByText('HTTP 200').waitFor();
    assert.ok(receiver.ids().filter((id) => id === eventId).length >= 2);
  });

  it('the audit log a page at a time: older and newer', async () => {
    for (let i = 0; i < 26; i++) await invite(newEmail('support'), 'support');
    const page = await openPage({ width: 375, colorScheme: 'light' });
    await signedInAs(page, 'admin');
    await page.goto(`${base}/dashboard#audit-log`);
    const rows = page.getByRole('table', { name: /^Page 1/ }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 25);
    const newest = await rows.first().innerText();
    assert.match(newest, /dashboard_user\.set_up/);
    assert.equal(await page.getByRole('button', { name: 'Newer' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByRole('table', { name: 'Page 2' }).waitFor();
    await focused(page.getByText('Page 2', { exact: true }));
    assert.notEqual(await page.locator('tbody tr').first().innerText(), newest);
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByRole('table', { name: /^Page 1/ }).waitFor();
    assert.equal(await page.locator('tbody tr').first().innerText(), newest);
  });

  it('a support person sees no developer actions, and a crafted request from their page is refused 403', async () => {
    const page = await openPage();
    const email = await signedInAs(page, 'support');
    await page.goto(`${base}/dashboard#developers`);
    await signedInHeader(page, email);
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await loaded(page);
    for (const name of [
      'Rotate signing secret',
      'Rotate server token',
      'Save URL',
      'Send test event',
      'Redeliver',
    ]) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    assert.equal(await page.getByRole('heading', { name: 'Server token' }).count(), 0);
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), [
      'Home',
      'Payments',
      'Tenants',
      'Payouts',
      'Developers',
    ]);

    const answer = await page.evaluate(async () => {
      const me = await (await fetch('/api/dashboard/me/')).json();
      const response = await fetch('/api/dashboard/webhook-endpoint/rotate-secret/', {
        method: 'POST',
        headers: { 'x-csrf-token': me.csrf_token },
      });
      return { status: response.status, body: await response.json() };
    });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error, 'forbidden');
    assert.equal((await auditActions(email)).includes('webhook_secret.rotate'), false);
  });

  it('a session ended by 31 minutes without use: the next action lands on the login page, which says so', async () => {
    const page = await openPage();
    const email = await signedInAs(page, 'admin');
    await page.goto(`${base}/dashboard#developers`);
    await signedInHeader(page, email);
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    // Every request of the page has been answered (none is left to meet the ended session first).
    await loaded(page);
    t.clock.advance(31 * 60_000);
    await page.getByRole('link', { name: 'Team' }).click();
    await page.waitForURL(`${base}/dashboard/login`);
    await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The ended session's cookie was cleared with the refusal.
    assert.equal((await page.context().cookies(base)).length, 0);
  });

  it('the pages are served with a strict CSP, never cached; assets for a year; nothing stored in the browser', async () => {
    for (const path of ['/dashboard', '/dashboard/setup', '/dashboard/login']) {
      const response = await fetch(`${base}${path}`);
      assert.equal(response.status, 200, path);
      const csp = String(response.headers.get('content-security-policy'));
      for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "img-src 'self' data:"]) {
        assert.ok(csp.includes(directive), `${path}: ${csp}`);
      }
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
    const html = await (await fetch(`${base}/dashboard`)).text();
    const script = html.match(/src="(\/dashboard\/assets\/[^"]+\.js)"/)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${base}${script}`);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal((await fetch(`${base}/dashboard/assets/nothing.js`)).status, 404);

    const page = await openPage();
    await signedInAs(page, 'admin');
    await page.goto(`${base}/dashboard#audit-log`);
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const stored = await page.evaluate(async () => ({
      local: localStorage.length,
      session: sessionStorage.length,
      databases: (await indexedDB.databases()).length,
      workers: (await navigator.serviceWorker?.getRegistrations())?.length ?? 0,
    }));
    assert.deepEqual(stored, { local: 0, session: 0, databases: 0, workers: 0 });
  });
});

/** Each state of the pages a look shows, checked by axe-core; also that nothing is wider than the screen. */
async function lookViolations(look: Look): Promise<string[]> {
  const found: string[] = [];
  const check = (page: Page, state: string, shot?: string) => lookChecker(page, look, found)(state, shot);

  // One context for the look: signed out for the login and set-up pages, then signed in.
  const page = await openPage(look);
  await page.goto(`${base}/dashboard/login?reason=expired`);
  await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
  await check(page, 'login, session ended', 'login');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('#code-error').waitFor();
  await check(page, 'login, field errors');

  const email = newEmail('admin');
  await page.goto(`${base}/dashboard/setup#invite=${await invite(email, 'admin')}`);
  await page.getByText(email, { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Set up and sign in' }).click();
  await page.locator('#password-error').waitFor();
  await check(page, 'set-up, authenticator app, field errors', 'setup');
  await page.getByRole('radio', { name: /Passkey/ }).check();
  await page.getByRole('heading', { name: 'Create a passkey' }).waitFor();
  await check(page, 'set-up, passkey');
  await page.goto(`${base}/dashboard/setup#invite=rpi_${'x'.repeat(40)}`);
  await page.getByRole('alert').filter({ hasText: 'This set-up link does not work' }).waitFor();
  await check(page, 'set-up, a link that does not work');

  await signedInAs(page, 'admin');
  await page.goto(`${base}/dashboard#developers`);
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.getByRole('button', { name: 'ping', exact: true }).first().click();
  await page.getByRole('heading', { name: /^ping evt_/ }).waitFor();
  await page.getByRole('button', { name: 'Rotate server token' }).click();
  await page.getByLabel('New server token').waitFor();
  await check(page, 'developers, a new token, an event’s attempts', 'developers');

  await page.getByRole('link', { name: 'Team' }).click();
  await page.getByLabel('Email').fill(newEmail('developer'));
  await page.getByRole('button', { name: 'Invite' }).click();
  await page.getByLabel(/^Set-up link for/).waitFor();
  await page
    .getByRole('button', { name: /^Remove / })
    .first()
    .click();
  await page.getByRole('button', { name: 'Keep' }).waitFor();
  await check(page, 'team, an invite link, a removal question', 'team');

  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('row').filter({ hasText: 'server_token.rotate' }).first().waitFor();
  await check(page, 'audit log', 'audit-log');
  return found;
}

describe('dashboard pages: WCAG 2.2 A/AA (axe-core) at 375 px and 1280 px, light and dark', () => {
  for (const look of LOOKS) {
    it(`${look.width} px, ${look.colorScheme}: login, set-up, developers, team, audit log`, async () => {
      assert.deepEqual(await lookViolations(look), []);
    });
  }

  it('no page logged an error (a CSP refusal, an exception)', () => {
    assert.deepEqual(d.pageErrors, []);
  });
});
