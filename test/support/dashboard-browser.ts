/**
 * The dashboard in real headless Chromium against the app on a port of its own. Its public URL is the origin the
 * browser uses, so the Origin checks and WebAuthn's relying party hold. The server's clock is a fake one; the
 * browser's is real. Shared by the dashboard's browser suites: pages per person, people signed in by role, and the
 * look check (axe-core, nothing wider than the screen).
 */

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Role } from '../../src/shared/roles.ts';
import { axeViolations } from './axe.ts';
import { freePort, leaseBrowser, releaseBrowser, UI_TIMEOUT_MS } from './browser.ts';
import { type DashboardPerson, signedInPerson } from './dashboard-client.ts';
import { startTestApp, type TestApp } from './helpers.ts';

/** The dashboard's suites wait for focus with the page's helper. */
export { focused } from './browser.ts';

/** A screen: its width and colour scheme. */
export interface Look {
  width: number;
  colorScheme: 'light' | 'dark';
}

/** The four looks every dashboard page is checked in. */
export const LOOKS: readonly Look[] = [
  { width: 375, colorScheme: 'light' },
  { width: 375, colorScheme: 'dark' },
  { width: 1280, colorScheme: 'light' },
  { width: 1280, colorScheme: 'dark' },
];

export interface SignedInPage {
  email: string;
  person: DashboardPerson;
}

export class DashboardBrowser {
  /** What the pages logged as errors (a CSP refusal, an exception): a suite expects none. */
  readonly pageErrors: string[] = [];
  readonly #contexts: BrowserContext[] = [];
  #nextPerson = 1;

  private constructor(
    readonly t: TestApp,
    readonly base: string,
    readonly browser: Browser,
    /** The platform the people belong to (Acme Lettings) unless a call names another. */
    readonly integratorId: string,
  ) {}

  /** The app listening on localhost (WebAuthn takes a domain as its relying party's id, never an IP address). */
  static async start(config: Record<string, unknown> = {}): Promise<DashboardBrowser> {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const t = await startTestApp({ config: { publicUrl: base, host: 'localhost', port, ...config } });
    await t.app.listen({ port, host: 'localhost' });
    const integratorId = (await t.createIntegrator({ name: 'Acme Lettings' })).id;
    return new DashboardBrowser(t, base, await leaseBrowser(), integratorId);
  }

  async close(): Promise<void> {
    for (const context of this.#contexts) await context.close();
    await releaseBrowser(this.browser);
    await this.t.close();
  }

  /** A page in a context of its own (cookies and all), at a width and in a colour scheme. */
  async openPage(look: Look = { width: 1280, colorScheme: 'light' }): Promise<Page> {
    const context = await this.browser.newContext({
      viewport: { width: look.width, height: 900 },
      colorScheme: look.colorScheme,
      acceptDownloads: true,
    });
    this.#contexts.push(context);
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    // tsx compiles the functions handed to page.evaluate with esbuild's keepNames, which calls __name.
    await context.addInitScript('window.__name = (fn) => fn;');
    const page = await context.newPage();
    page.on('console', (message) => {
      // The API's refusals (401, 403, 404) the pages expect are logged by the browser as failed loads: not errors.
      if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) {
        this.pageErrors.push(`${page.url()}: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => this.pageErrors.push(`${page.url()}: ${error.message}`));
    return page;
  }

  newEmail(role: string): string {
    return `${role.replace('_', '-')}${this.#nextPerson++}@acme.example`;
  }

  /**
   * A person signed in through the API, their session cookie put in the page's context. `team` is the platform
   * (this suite's one unless given), or null for the operator's staff.
   */
  async signedInAs(page: Page, role: Role, team: string | null = this.integratorId): Promise<SignedInPage> {
    const email = this.newEmail(role);
    const person = await signedInPerson(this.t, { team, email, role });
    const [name, value] = person.cookie.split('=') as [string, string];
    // In production the session cookie is `__Host-` and Secure: set for https, Chromium still sends it to
    // http://localhost (a secure context).
    const secure = this.t.config.serviceEnv === 'production';
    await page.context().addCookies([
      {
        name,
        value,
        url: secure ? this.base.replace('http:', 'https:') : this.base,
        httpOnly: true,
        secure,
        sameSite: 'Strict',
      },
    ]);
    return { email, person };
  }

  /** Opens a place in the signed-in dashboard (`payments/pay_1?status=failed`) and waits for the header. */
  async goTo(page: Page, place: string, email: string): Promise<void> {
    await page.goto(`${this.base}/dashboard#${place}`);
    await signedInHeader(page, email);
  }
}

/**
 * The docs' picture of a page (docs/images/dashboard-<name>.png), taken only when DASHBOARD_SCREENSHOTS names the
 * folder (`npm run docs:screenshots`): a 1280 px, light page, as the suites leave it once it has loaded.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.DASHBOARD_SCREENSHOTS;
  if (!folder) return;
  await loaded(page);
  fs.mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `dashboard-${name}.png`), fullPage: true });
}

/**
 * Waits until nothing on the page says it is loading (every `Loading…` status is gone): however many parts load at
 * once, unlike a locator's wait, which wants one element.
 */
export async function loaded(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      ![...document.querySelectorAll('[role="status"]')].some((status) =>
        /^Loading/.test(status.textContent ?? ''),
      ),
  );
}

/** Waits for the signed-in header naming `email`; when it does not come, fails with what the page shows instead. */
export async function signedInHeader(page: Page, email: string): Promise<void> {
  try {
    await page.getByRole('banner').getByText(email, { exact: true }).waitFor();
  } catch (error) {
    const shown = await page
      .locator('body')
      .innerText({ timeout: 2_000 })
      .catch((failure: Error) => `(unreadable: ${failure.message})`);
    throw new Error(`${(error as Error).message}\nThe page (${page.url()}) showed:\n${shown}`, {
      cause: error,
    });
  }
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

/**
 * A check of the page as it is now, in a look: axe-core's WCAG 2.2 A/AA violations and anything wider than the
 * screen (a table scrolls inside its region, so its cells do not count). Answers what it found, named by `state`.
 */
export async function lookProblems(page: Page, look: Look, state: string): Promise<string[]> {
  await page.emulateMedia({ colorScheme: look.colorScheme });
  const found = await axeViolations(page.mainFrame(), state);
  const wide = await page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    // The outermost elements that stick out.
    const culprits = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
      .filter((element) => !element.parentElement?.closest('.table-wrap'))
      .slice(0, 3)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${element.className}`,
      );
    return over > 0 ? `${over} px (${culprits.join(', ')})` : '';
  });
  if (wide) found.push(`${state}: the page is wider than the screen by ${wide}`);
  return found;
}

/**
 * The check of a suite's looks test: each call adds the page's lookProblems to `found`; in the desktop light look a
 * call naming `shot` also takes the docs' picture of the page (see screenshot).
 */
export function lookChecker(
  page: Page,
  look: Look,
  found: string[],
): (state: string, shot?: string) => Promise<void> {
  return async (state, shot) => {
    found.push(...(await lookProblems(page, look, state)));
    if (shot && look.width === 1280 && look.colorScheme === 'light') await screenshot(page, shot);
  };
}

/** Fails with every problem the looks found, one per line. */
export function assertNoProblems(found: string[]): void {
  assert.deepEqual(found, [], found.join('\n'));
}
