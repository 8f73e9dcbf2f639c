/**
 * The hosted page in real headless Chromium: the app listening on one origin, an integrator's page that
 * frames it on another (allowed) origin, and a third origin the integrator never allowed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Frame,
  type FrameLocator,
  type Locator,
  type Page,
} from 'playwright-core';
import { jobHandlers } from '../../src/jobs.ts';
import type { FakeClock } from '../../src/platform/clock/clock.ts';
import type { Config } from '../../src/platform/config/config.ts';
import { JOBS_CHANNEL } from '../../src/platform/jobs/queue.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { type Answer, type Api, integrationApi, send, UNLIMITED } from './api-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from './helpers.ts';

/**
 * Chromium's headless shell when installed (Debian's chromium-headless-shell: the engine Playwright runs headless by
 * default, without the full browser's window and UI processes; a fifth less CPU per browser file here), else the full
 * browser.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ||
  (fs.existsSync('/usr/bin/chromium-headless-shell')
    ? '/usr/bin/chromium-headless-shell'
    : '/usr/bin/chromium');
/** Screenshots of each final screen, kept by CI as artifacts; one folder per database pass. */
export const RESULTS_DIR = path.resolve(
  'test-results',
  process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite',
);
/** Long enough for a loaded CI machine; every wait ends as soon as its condition holds. */
export const UI_TIMEOUT_MS = 20_000;

/**
 * Playwright's own `--disable-features` list (playwright-core 1.65), which a second `--disable-features` would
 * replace rather than extend (Chromium keeps the last one): repeated here with ours. `leaseBrowser` checks, on each
 * launch, that this still holds every feature Playwright disables, so an upgrade that changes its list fails loudly.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
/**
 * The headless shell keeps every site in one renderer unless told: `--site-per-process` gives the payment frame (on
 * another site than the integrator's page) a process of its own, as the browsers tenants use do. Headless Chromium
 * (the full browser since Chromium 132) gives every window, so every browser context, the omnibox popup of its
 * (invisible) address bar as two WebUI renderers of their own: a third of a browser file's CPU. The page never sees them.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--site-per-process',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'].join(',')}`,
];
/** A browser no file uses for this long is closed (it would keep the test process from ending). */
const BROWSER_IDLE_CLOSE_MS = 1_000;

/** Chromium with the arguments above, for a file that manages its browser itself (close it when done). */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    checkDisabledFeatures();
  } catch (error) {
    await browser.close();
    throw error;
  }
  return browser;
}

/** The features Playwright disables must all be in ours: on Linux, read from the launched browsers' command lines. */
function checkDisabledFeatures(): void {
  const ours = new Set(PLAYWRIGHT_DISABLED_FEATURES);
  let children: string[];
  try {
    children = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return;
  }
  for (const pid of children) {
    let argv: string[];
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const lists = argv.filter((arg) => arg.startsWith('--disable-features='));
    if (lists.length < 2) continue;
    const missing = lists[0]!
      .slice('--disable-features='.length)
      .split(',')
      .filter((feature) => feature && !ours.has(feature));
    if (missing.length)
      throw new Error(
        `Playwright now disables ${missing.join(', ')} too: add them to PLAYWRIGHT_DISABLED_FEATURES in test/support/browser.ts`,
      );
  }
}

/**
 * One Chromium per test process, shared by the files it runs one after another: launching one costs most of a
 * second. Each lease is a view of it whose newContext/newPage remember what they open; given back, the lease's
 * contexts are closed (never another lease's: a file may hold two environments), and a browser no lease uses is
 * closed soon after.
 */
let shared: { browser: Promise<Browser>; users: number; idle?: NodeJS.Timeout } | undefined;
const leases = new WeakMap<Browser, { browser: Browser; contexts: Set<BrowserContext> }>();

async function sharedBrowser(): Promise<Browser> {
  if (shared) {
    clearTimeout(shared.idle);
    shared.users++;
    try {
      const browser = await shared.browser;
      if (browser.isConnected()) return browser;
    } catch {
      // Launching failed or the browser went away: launch another below.
    }
    shared.users--;
  }
  const launching = launchChromium();
  const lease = { browser: launching, users: 1 };
  shared = lease;
  const browser = await launching.catch((error) => {
    if (shared === lease) shared = undefined;
    throw error;
  });
  browser.on('disconnected', () => {
    if (shared === lease) shared = undefined;
  });
  return browser;
}

export async function leaseBrowser(): Promise<Browser> {
  const browser = await sharedBrowser();
  const contexts = new Set<BrowserContext>();
  const remember = (context: BrowserContext) => {
    contexts.add(context);
    context.on('close', () => contexts.delete(context));
    return context;
  };
  const view = new Proxy(browser, {
    get(target, property) {
      if (property === 'newContext')
        return async (...args: Parameters<Browser['newContext']>) =>
          remember(await target.newContext(...args));
      if (property === 'newPage')
        return async (...args: Parameters<Browser['newPage']>) => {
          const page = await target.newPage(...args);
          remember(page.context());
          return page;
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  leases.set(view, { browser, contexts });
  return view;
}

/** Gives back a leased browser (closing the contexts it opened); any other browser is closed. */
export async function releaseBrowser(view: Browser): Promise<void> {
  const lease = leases.get(view);
  if (!lease) {
    await view.close();
    return;
  }
  leases.delete(view);
  for (const context of [...lease.contexts]) await context.close().catch(() => undefined);
  const current = shared;
  if (!current || (await current.browser.catch(() => undefined)) !== lease.browser) {
    await lease.browser.close().catch(() => undefined);
    return;
  }
  current.users--;
  if (current.users > 0) return;
  current.idle = setTimeout(() => {
    if (shared === current) shared = undefined;
    lease.browser.close().catch(() => undefined);
  }, BROWSER_IDLE_CLOSE_MS);
}

export interface PageEnvironment {
  t: TestApp;
  api: Api;
  /** Where the app listens, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  /** The integrator's own site, allowed to frame the page. */
  integratorOrigin: string;
  /** A site the integrator never allowed. */
  strangerOrigin: string;
  browser: Browser;
  close(): Promise<void>;
}

export interface Tenant {
  token: string;
  sessionId: string;
  email: string;
  userId: number;
  paymentReference: string;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The integrator's page with the SDK: `umd`, `esm` or both (two copies), a container and a log of events. */
function sdkPage(serviceUrl: string, load: string): string {
  const umd = `<script src="${serviceUrl}/sdk/rentpay.umd.js"></script>`;
  const esm = `<script type="module">import SVC from '${serviceUrl}/sdk/rentpay.js'; window.SVCModule = SVC; window.moduleLoaded = true;</script>`;
  const scripts = load === 'umd' ? umd : load === 'esm' ? esm : `${umd}${esm}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Platform checkout</title>
<script>window.events = []; window.warnings = [];
const warn = console.warn; console.warn = (...args) => { window.warnings.push(args.join(' ')); warn(...args); };</script>
${scripts}</head><body><h1>Acme Lettings checkout</h1><div id="pay"></div></body></html>`;
}

/**
 * A site of its own: `/embed?src=` frames the hosted page in a plain iframe (width 100%, height 700, allow payment),
 * `/sdk?load=` hosts the SDK from another origin, as an integrator's pages would.
 */
async function startEmbeddingSite(serviceUrl: string): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/sdk') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(sdkPage(serviceUrl, url.searchParams.get('load') ?? 'umd'));
      return;
    }
    if (url.pathname !== '/embed') {
      response.writeHead(404).end();
      return;
    }
    const src = url.searchParams.get('src') ?? '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Platform</title></head>
<body><h1>Acme Lettings</h1>
<iframe id="rentpay" title="Pay rent" src="${escapeAttribute(src)}" width="100%" height="700" frameborder="0" allow="payment"></iframe>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `options`: more configuration, and a clock (e.g. at the real time, for a receiver that checks timestamps). */
export async function startPageEnvironment(
  integratorSettings: Record<string, unknown> = {},
  options: { config?: Partial<Config>; clock?: FakeClock } = {},
): Promise<PageEnvironment> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({
    config: { publicUrl: baseUrl, host: '127.0.0.1', port, ...options.config },
    clock: options.clock,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  // The sandbox's notifications (3DS, APM outcomes) reach the payment through jobs, as in `rentpay serve`: a job due
  // now wakes the worker when its transaction commits; the poll is only for jobs that fall due as the clock moves.
  // (Polling every 25 ms instead cost a core's fifth on the embedded database, a third of some files' time.)
  const worker = new Worker({
    db: t.db,
    clock: t.clock,
    log: createLogger('silent'),
    handlers: jobHandlers(t.config, t.app.ctx),
    wakeChannel: JOBS_CHANNEL,
    pollIntervalMs: 250,
  });
  worker.start();
  await worker.listening();
  const integratorSite = await startEmbeddingSite(baseUrl);
  const strangerSite = await startEmbeddingSite(baseUrl);
  // "localhost" against the app's 127.0.0.1: another site, not only another origin.
  const integratorOrigin = `http://localhost:${integratorSite.port}`;
  const strangerOrigin = `http://localhost:${strangerSite.port}`;
  const integrator = await t.createIntegrator({
    ...UNLIMITED,
    allowed_origins: [integratorOrigin],
    ...integratorSettings,
  });
  const browser = await leaseBrowser();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  return {
    t,
    api: integrationApi(t, integrator),
    baseUrl,
    integratorOrigin,
    strangerOrigin,
    browser,
    async close() {
      await releaseBrowser(browser);
      await worker.stop();
      integratorSite.server.close();
      strangerSite.server.close();
      await t.close();
    },
  };
}

let nextUser = 1;

/**
 * A new tenant of its own, logged in (`login` added to user-login's body). Their tenancy (`tenancy` overrides it)
 * starts on the server clock's 1 March 2026, so rent of `rent` is due today and nothing is overdue: the page
 * suggests that rent.
 */
export async function newTenant(
  env: PageEnvironment,
  rent = '1200.00',
  login: Record<string, unknown> = {},
  tenancy: Record<string, unknown> = {},
): Promise<Tenant> {
  const userId = nextUser++;
  const email = `tenant${userId}@example.com`;
  const paymentReference = `RENT-${userId}`;
  await env.api.onboardOk(
    userBody({
      user_id: userId,
      email,
      tenant: [
        tenancyBody({
          payment_reference: paymentReference,
          amount: rent,
          start_rent_date: '2026-03-01',
          ...tenancy,
        }),
      ],
    }),
  );
  const answer = await env.api.login({ email, ...login });
  if (answer.status !== 200) throw new Error(`user-login: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { token: answer.body.token, sessionId: answer.body.session_id, email, userId, paymentReference };
}

export function pageUrl(env: PageEnvironment, tenant: Pick<Tenant, 'token' | 'sessionId'>): string {
  return `${env.baseUrl}/third-party?token=${encodeURIComponent(tenant.token)}&session_id=${encodeURIComponent(tenant.sessionId)}`;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  frame: FrameLocator;
}

/** The integrator's page (on `origin`) with the payment page in its iframe. */
export async function openInIntegratorPage(
  env: PageEnvironment,
  tenant: Pick<Tenant, 'token' | 'sessionId'>,
  options: {
    origin?: string;
    width?: number;
    colorScheme?: 'light' | 'dark';
    /** Runs in every frame before its scripts (e.g. the Stripe stand-in's device wallets). */
    initScript?: string;
    /** Playwright's fake clock, installed before the page loads. */
    fakeClock?: boolean;
  } = {},
): Promise<OpenedPage> {
  const context = await env.browser.newContext({
    viewport: { width: options.width ?? 480, height: 820 },
    colorScheme: options.colorScheme ?? 'light',
  });
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  if (options.initScript) await context.addInitScript(options.initScript);
  const page = await context.newPage();
  if (options.fakeClock) await page.clock.install();
  const origin = options.origin ?? env.integratorOrigin;
  await page.goto(`${origin}/embed?src=${encodeURIComponent(pageUrl(env, tenant))}`);
  return { context, page, frame: page.frameLocator('#rentpay') };
}

/** The integrator's checkout page (on `origin`) with the SDK loaded as `load`: umd, esm or both (two copies). */
export async function openSdkCheckout(
  env: PageEnvironment,
  load: 'umd' | 'esm' | 'both' = 'umd',
  origin = env.integratorOrigin,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await env.browser.newContext({ viewport: { width: 520, height: 900 } });
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  // tsx compiles the functions handed to page.evaluate with esbuild's keepNames, which calls __name.
  await context.addInitScript('window.__name = (fn) => fn;');
  const page = await context.newPage();
  await page.goto(`${origin}/sdk?load=${load}`);
  if (load !== 'umd')
    await page.waitForFunction(() => (window as unknown as { moduleLoaded?: boolean }).moduleLoaded);
  return { context, page };
}

/** The payment page's frame inside the integrator's page, as a Frame (for evaluate and its URL). */
export async function paymentFrame(env: Pick<PageEnvironment, 'baseUrl'>, page: Page): Promise<Frame> {
  const deadline = Date.now() + UI_TIMEOUT_MS;
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().startsWith(`${env.baseUrl}/third-party`));
    if (frame) return frame;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`Timed out after ${UI_TIMEOUT_MS} ms waiting for the payment frame`);
    await page.waitForEvent('framenavigated', { timeout: left });
  }
}

/**
 * Waits until `element` has the keyboard focus in its own document (the page's frame or the dashboard): focus moves
 * in an effect after the render that shows the element, so it can be visible a moment before it is focused. Fails
 * with what has the focus instead.
 */
export async function focused(element: Locator): Promise<void> {
  const handle = await element.elementHandle({ timeout: UI_TIMEOUT_MS });
  const frame = await handle.ownerFrame();
  assert.ok(frame, 'the element is in a frame');
  try {
    await frame.waitForFunction((node) => node === node.ownerDocument.activeElement, handle, {
      timeout: UI_TIMEOUT_MS,
    });
  } catch {
    const has = await frame.evaluate(() => {
      const active = document.activeElement;
      return `${active?.getAttribute('role') ?? active?.tagName.toLowerCase()}: ${active?.textContent?.trim()}`;
    });
    assert.fail(`the focus is on "${has}", not on ${element}`);
  } finally {
    await handle.dispose();
  }
}

/**
 * Resolves once the payment page's frame has run the effects of what it shows now: Preact runs a render's effects in
 * a timer after the next animation frame, and this waits for a frame and a timer after those. Call it before moving a
 * fake clock, so the page's own timers (the session's expiry) are armed before the jump, never after it.
 */
export async function effectsRun(env: Pick<PageEnvironment, 'baseUrl'>, page: Page): Promise<void> {
  const frame = await paymentFrame(env, page);
  await frame.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve))),
  );
}

export async function fillCard(
  frame: FrameLocator,
  number: string,
  cvc: string,
  expiry = '12 / 30',
): Promise<void> {
  await frame.getByLabel('Card number').fill(number);
  await frame.getByLabel('Expiry').fill(expiry);
  await frame.getByLabel('CVC').fill(cvc);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(RESULTS_DIR, `${name}.png`), fullPage: true });
}

/**
 * Every row of every table of the test schema, as text, for "never stored" checks. The migrations' own bookkeeping
 * is left out: its applied_at is the database's wall clock (millisecond digits on PGlite), which made a 3-digit CVC
 * turn up by chance about once in a thousand rows.
 */
export async function allRowsText(t: TestApp): Promise<string> {
  const tables = await t.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await t.db.query<{ row: string }>(`SELECT r::text AS row FROM "${table_name}" r`);
    for (const { row } of rows) parts.push(`${table_name}: ${row}`);
  }
  return parts.join('\n');
}

/**
 * SVC.init in the integrator's page (SDK loaded by openSdkCheckout) with these options over the defaults: the
 * service, the tenant's token, container #pay, sandbox, pure_amount 1200, and callbacks that log to window.events.
 */
export async function sdkInit(
  env: PageEnvironment,
  page: Page,
  tenant: Pick<Tenant, 'token'>,
  options: Record<string, unknown> = {},
  global: 'SVC' | 'SVCModule' = 'SVC',
): Promise<{ ok: true } | { ok: false; error: { code: string; message: string; [key: string]: unknown } }> {
  return page.evaluate(
    async ({ base, token, extra, name }) => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      try {
        await w[name].init({
          apiBaseUrl: base,
          authToken: token,
          container: '#pay',
          environment: 'sandbox',
          pure_amount: 1200,
          onSuccess: (payment: unknown) => w.events.push({ type: 'onSuccess', payment }),
          onError: (error: unknown) => w.events.push({ type: 'onError', error }),
          ...extra,
        });
        return { ok: true as const };
      } catch (error) {
        return { ok: false as const, error: error as { code: string; message: string } };
      }
    },
    { base: env.baseUrl, token: tenant.token, extra: options, name: global },
  );
}

/** SVC.pay() started now; the result comes later (3DS, declines). */
export function sdkPay(page: Page): Promise<{ ok: boolean; value: Record<string, unknown> }> {
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the page's globals
    const w = window as any;
    try {
      return { ok: true, value: await w.SVC.pay() };
    } catch (error) {
      return { ok: false, value: error as Record<string, unknown> };
    }
  });
}

/** What the SDK's callbacks logged in the integrator's page. */
export function sdkEvents(page: Page): Promise<{ type: string; [key: string]: unknown }[]> {
  return page.evaluate(() => (window as unknown as { events: { type: string }[] }).events);
}

/** The Operator API on the environment's integrator: `path` after /api/operator/integrators/{id}, e.g. "/suspend". */
export function operatorCall(
  env: PageEnvironment,
  path: string,
  method: 'POST' | 'PATCH' = 'POST',
  payload?: Record<string, unknown>,
): Promise<Answer> {
  return send(env.t, {
    method,
    url: `/api/operator/integrators/${env.api.integratorId}${path}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    ...(payload ? { payload } : {}),
  });
}

/** Runs `fn` with the integrator's fees set to `fees` (after the page loaded, say), then sets `restore`. */
export async function withFees<T>(
  env: PageEnvironment,
  fees: Record<string, unknown>,
  restore: Record<string, unknown>,
  fn: () => Promise<T>,
): Promise<T> {
  const changed = await operatorCall(env, '', 'PATCH', { fees });
  if (changed.status !== 200) throw new Error(`fees: ${changed.status} ${JSON.stringify(changed.body)}`);
  try {
    return await fn();
  } finally {
    await operatorCall(env, '', 'PATCH', { fees: restore });
  }
}

/** Runs `fn` while the environment's integrator is suspended, then unsuspends it. */
export async function whileSuspended<T>(env: PageEnvironment, fn: () => Promise<T>): Promise<T> {
  const suspended = await operatorCall(env, '/suspend');
  if (suspended.status !== 200)
    throw new Error(`suspend: ${suspended.status} ${JSON.stringify(suspended.body)}`);
  try {
    return await fn();
  } finally {
    await operatorCall(env, '/unsuspend');
  }
}

/** A session's payments as stored, oldest first: what was really charged. */
export function chargesOf(
  env: PageEnvironment,
  sessionId: string,
): Promise<{ status: string; pure_amount_pence: string; amount_pence: string }[]> {
  return env.t.db.query(
    'SELECT status, pure_amount_pence::text, amount_pence::text FROM payments WHERE session_id = $1 ORDER BY created_at',
    [sessionId],
  );
}

/** Card fee of the amount suites: 1200.00 costs 1217.40. */
export const CARD_FEES = { card: { percent: '1.45', fixed: '0.00' } };
/** The same fee raised by the operator mid-test: 1200.00 at 2 % + £0.20 = 1224.20. */
export const RAISED_CARD_FEES = { card: { percent: '2.00', fixed: '0.20' } };

/**
 * One page environment for a whole test file: started before its tests, closed after them. Every browser context a
 * test adds to `contexts` is closed when that test ends. `env` is set once the file's `before` has run.
 */
/**
 * Waits for the page to say the payment succeeded. When it does not in time, the error says what the page showed and
 * what the server holds (the latest payments and jobs, with a failed job's error), so a failure in CI explains itself.
 */
export async function paymentSucceeded(env: PageEnvironment, frame: FrameLocator): Promise<void> {
  try {
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
  } catch (error) {
    const shown = await frame
      .locator('body')
      .innerText({ timeout: 2_000 })
      .catch((failure: Error) => `(unreadable: ${failure.message})`);
    const payments = await env.t.db.query(
      'SELECT id, status, method, failure_code, created_at FROM payments ORDER BY created_at DESC LIMIT 3',
    );
    const jobs = await env.t.db.query(
      `SELECT kind, status, attempts, run_at, last_error FROM jobs
        WHERE kind NOT LIKE 'webhook%' ORDER BY created_at DESC LIMIT 8`,
    );
    throw new Error(
      `${(error as Error).message}\nThe page showed:\n${shown}\nPayments: ${JSON.stringify(payments)}\nJobs: ${JSON.stringify(jobs)}\nServer clock: ${env.t.clock.now().toISOString()}`,
      { cause: error },
    );
  }
}

export function pageEnvironmentPerFile(
  integratorSettings: Record<string, unknown> = {},
  options: Parameters<typeof startPageEnvironment>[1] = {},
): {
  env: PageEnvironment;
  contexts: BrowserContext[];
} {
  const file = { env: undefined as unknown as PageEnvironment, contexts: [] as BrowserContext[] };
  before(async () => {
    file.env = await startPageEnvironment(integratorSettings, options);
  });
  // A test's pages are closed when it ends, not kept open (timers, polls, memory) until the file does.
  afterEach(async () => {
    for (const context of file.contexts.splice(0)) await context.close();
  });
  after(async () => {
    for (const context of file.contexts) await context.close();
    await file.env.close();
  });
  return file;
}
