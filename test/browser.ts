/**
 * The hosted page in real headless Chromium: the app listening on one origin, an integrator's page that
 * frames it on another (allowed) origin, and a third origin the integrator never allowed.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type FrameLocator, type Page } from 'playwright-core';
import { jobHandlers } from '../src/jobs.ts';
import type { FakeClock } from '../src/platform/clock/clock.ts';
import type { Config } from '../src/platform/config/config.ts';
import { Worker } from '../src/platform/jobs/queue.ts';
import { createLogger } from '../src/platform/log/logger.ts';
import { type Api, integrationApi, UNLIMITED } from './api-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import { startTestApp, type TestApp } from './helpers.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Screenshots of each final screen, kept by CI as artifacts; one folder per database pass. */
export const RESULTS_DIR = path.resolve(
  'test-results',
  process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite',
);
/** Long enough for a loaded CI machine; every wait ends as soon as its condition holds. */
export const UI_TIMEOUT_MS = 20_000;

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
 * A site of its own: `/embed?src=` frames the hosted page (spec: Hosted payment interface), `/sdk?load=`
 * hosts the SDK (spec: Client SDK), as an integrator's pages would.
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
  // The sandbox's notifications (3DS, APM outcomes) reach the payment through jobs, as in `rentpay serve`.
  const worker = new Worker({
    db: t.db,
    clock: t.clock,
    log: createLogger('silent'),
    handlers: jobHandlers(t.config),
    pollIntervalMs: 25,
  });
  worker.start();
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
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  return {
    t,
    api: integrationApi(t, integrator),
    baseUrl,
    integratorOrigin,
    strangerOrigin,
    browser,
    async close() {
      await browser.close();
      await worker.stop();
      integratorSite.server.close();
      strangerSite.server.close();
      await t.close();
    },
  };
}

let nextUser = 1;

/** Onboards a tenant of its own (rent `rent`) and logs them in. */
export async function newTenant(env: PageEnvironment, rent = '1200.00'): Promise<Tenant> {
  const userId = nextUser++;
  const email = `tenant${userId}@example.com`;
  const paymentReference = `RENT-${userId}`;
  await env.api.onboardOk(
    userBody({
      user_id: userId,
      email,
      tenant: [tenancyBody({ payment_reference: paymentReference, amount: rent })],
    }),
  );
  const login = await env.api.loginOk(email);
  return { token: login.token, sessionId: login.session_id, email, userId, paymentReference };
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
  options: { origin?: string; width?: number } = {},
): Promise<OpenedPage> {
  const context = await env.browser.newContext({ viewport: { width: options.width ?? 480, height: 820 } });
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  const page = await context.newPage();
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

/** Every row of every table of the test schema, as text, for "never stored" checks. */
export async function allRowsText(t: TestApp): Promise<string> {
  const tables = await t.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await t.db.query<{ row: string }>(`SELECT r::text AS row FROM "${table_name}" r`);
    for (const { row } of rows) parts.push(`${table_name}: ${row}`);
  }
  return parts.join('\n');
}
