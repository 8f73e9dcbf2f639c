/**
 * The demo integrator: examples/integrator/server.mjs as a process of its own on another site, and the same
 * handler at /demo inside the app. In Chromium each pays in the hosted page's iframe and with the SDK (the
 * platform's own Pay button), and lists both webhooks as verified; no answer ever carries a server token.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { Page, Response } from 'playwright-core';
import { createIntegratorHandler } from '../../examples/integrator/handler.mjs';
import demoPlatform, { DEMO_INTEGRATOR_NAME } from '../../src/demo/plugin.ts';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import { UNLIMITED } from '../support/api-client.ts';
import {
  allRowsText,
  fillCard,
  freePort,
  type PageEnvironment,
  screenshot,
  startPageEnvironment,
  UI_TIMEOUT_MS,
} from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/helpers.ts';

const VISA = '4242424242424242';
const CVC = '737';
/** A server token in full; the stored display prefix (rp_sandbox_ and 4 characters) is not one. */
const SERVER_TOKEN = /rp_(sandbox|live)_[A-Za-z0-9]{40}/;

/** Every answer the browser got, by URL, to search for secrets afterwards. */
function recordBodies(page: Page): { url: string; body: string }[] {
  const bodies: { url: string; body: string }[] = [];
  page.on('response', (response: Response) => {
    response.text().then(
      (body) => bodies.push({ url: response.url(), body }),
      () => undefined, // a redirect or an aborted load has no body
    );
  });
  return bodies;
}

/** The platform's page: pays in the iframe, then with the SDK; waits for both webhooks, verified. */
async function payBothWays(page: Page, name: string): Promise<string[]> {
  const hosted = page.frameLocator('#hosted-frame');
  await fillCard(hosted, VISA, CVC);
  await hosted.getByRole('button', { name: 'Pay £1,200.00' }).click();
  await hosted.getByRole('heading', { name: 'Payment successful' }).waitFor();

  await page.getByText(/^Ready\./).waitFor();
  await fillCard(page.frameLocator('#sdk-form iframe'), VISA, CVC);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await page.getByText(/^onSuccess: payment pay_\w+ succeeded, £1200\.00$/).waitFor();

  const rows = page.locator('#webhooks tbody tr', { hasText: 'payment_success' });
  // The page's CSP allows no eval, so the wait is a locator's, not a function's.
  await page.locator('#webhooks tbody tr.verified', { hasText: 'payment_success' }).nth(1).waitFor();
  const texts = await rows.allInnerTexts();
  assert.equal(texts.length, 2, texts.join('\n'));
  for (const text of texts) assert.match(text, /succeeded, £1200\.00 by card\s+verified$/);
  await screenshot(page, name);
  return texts.map((text) => /pay_\w+/.exec(text)?.[0] ?? '');
}

async function succeededPayments(env: PageEnvironment, integratorId: string): Promise<string[]> {
  const rows = await env.t.db.query<{ id: string }>(
    `SELECT p.id FROM payments p JOIN sessions s ON s.id = p.session_id
      WHERE s.integrator_id = $1 AND p.status = 'succeeded' ORDER BY p.id`,
    [integratorId],
  );
  return rows.map((row) => row.id);
}

function assertNoServerToken(bodies: { url: string; body: string }[]): void {
  assert.ok(bodies.length > 5, 'the browser loaded the page and its parts');
  for (const { url, body } of bodies) {
    assert.doesNotMatch(body, SERVER_TOKEN, url);
    assert.doesNotMatch(body, /rp_sandbox_/, url);
  }
}

describe('the demo integrator in Chromium', () => {
  let env: PageEnvironment;
  let example: ChildProcess;
  let exampleOrigin: string;
  let exampleIntegrator: { id: string; token: string; webhookSecret: string };

  before(async () => {
    // Webhooks are signed with the app's clock and checked against real time: the clock starts now.
    env = await startPageEnvironment(
      {},
      {
        config: { allowPrivateWebhookHosts: true, allowPrivateDocumentHosts: true },
        clock: new FakeClock(new Date()),
      },
    );
    const port = await freePort();
    // Another site than the service (localhost against 127.0.0.1), as an integrator's would be.
    exampleOrigin = `http://localhost:${port}`;
    exampleIntegrator = await env.t.createIntegrator({
      ...UNLIMITED,
      name: 'Acme Lettings (example)',
      allowed_origins: [exampleOrigin],
      webhook_url: `http://127.0.0.1:${port}/webhooks`,
    });
    example = spawn(process.execPath, ['examples/integrator/server.mjs'], {
      env: {
        ...process.env,
        RENTPAY_URL: env.baseUrl,
        RENTPAY_SERVER_TOKEN: exampleIntegrator.token,
        RENTPAY_WEBHOOK_SECRET: exampleIntegrator.webhookSecret,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      example.stdout?.on('data', (chunk) => {
        output += chunk;
        if (output.includes('listening on')) resolve();
      });
      example.stderr?.on('data', (chunk) => {
        output += chunk;
      });
      example.on('exit', (code) => reject(new Error(`the example exited ${code}: ${output}`)));
    });
  });

  after(async () => {
    if (example.exitCode === null) {
      example.removeAllListeners('exit');
      await new Promise((resolve) => {
        example.on('exit', resolve);
        example.kill('SIGTERM');
      });
    }
    await env.close();
  });

  /** The platform's page at `url` in a wide window, with every answer the browser got. */
  async function withPlatformPage(
    url: string,
    use: (page: Page, bodies: { url: string; body: string }[]) => Promise<void>,
  ): Promise<void> {
    // Tall enough for the whole page: a full-page screenshot taller than the window leaves a cross-site
    // frame blank in Chromium.
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 1400 } });
    context.setDefaultTimeout(UI_TIMEOUT_MS);
    try {
      const page = await context.newPage();
      const bodies = recordBodies(page);
      await page.goto(url);
      await use(page, bodies);
    } finally {
      await context.close();
    }
  }

  it('examples/integrator/server.mjs: pays in the iframe and with the SDK, and lists both webhooks as verified', async () => {
    await withPlatformPage(`${exampleOrigin}/`, async (page, bodies) => {
      await page.getByRole('heading', { name: 'Acme Lettings' }).waitFor();
      assert.equal(await page.locator('.notice').count(), 0, 'the webhook URL points at this server');
      const listed = await payBothWays(page, 'demo-example-server');
      assert.deepEqual(listed.sort(), await succeededPayments(env, exampleIntegrator.id));
      assertNoServerToken(bodies);
      assert.ok(bodies.every(({ body }) => !body.includes(exampleIntegrator.token)));
    });
  });

  it('examples/integrator/server.mjs: a webhook with a wrong signature is answered 400 and listed as not verified', async () => {
    const response = await fetch(`${exampleOrigin}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJl',
      },
      body: JSON.stringify({ type: 'payment_success', timestamp: new Date().toISOString(), data: {} }),
    });
    assert.equal(response.status, 400);
    const { webhooks } = (await (await fetch(`${exampleOrigin}/api/webhooks`)).json()) as {
      webhooks: { id: string; verified: boolean; error: string | null }[];
    };
    const forged = webhooks.find((item) => item.id === 'evt_forged');
    assert.deepEqual(
      { verified: forged?.verified, error: forged?.error },
      { verified: false, error: 'No matching signature found' },
    );
  });

  it('/demo in the app: the same page pays both ways with its own integrator; no answer carries a server token', async () => {
    await withPlatformPage(`${env.baseUrl}/demo`, async (page, bodies) => {
      await page.getByText(`integrator ${DEMO_INTEGRATOR_NAME}`).waitFor();
      assert.equal(await page.locator('.notice').count(), 0, 'ALLOW_PRIVATE_WEBHOOK_HOSTS is on');
      const [demo] = await env.t.db.query<{ id: string; allowed_origins: string[]; webhook_url: string }>(
        'SELECT id, allowed_origins, webhook_url FROM integrators WHERE name = $1',
        [DEMO_INTEGRATOR_NAME],
      );
      assert.deepEqual(demo?.allowed_origins, [env.baseUrl]);
      assert.equal(demo?.webhook_url, `${env.baseUrl}/demo/webhooks`);
      const listed = await payBothWays(page, 'demo-in-app');
      assert.deepEqual(listed.sort(), await succeededPayments(env, demo!.id));
      assertNoServerToken(bodies);
      assert.doesNotMatch(await allRowsText(env.t), SERVER_TOKEN, 'only hashes are stored');
      assert.doesNotMatch(env.t.logs.text, SERVER_TOKEN);
    });
  });
});

describe('/demo in the app', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  async function get(app: TestApp, url: string) {
    return app.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
  }
  async function post(url: string, type = 'application/json', payload = '{}') {
    return t.app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload });
  }

  it('answers 200 HTML, says plainly that webhooks need ALLOW_PRIVATE_WEBHOOK_HOSTS, and sets no webhook URL', async () => {
    const page = await get(t, '/demo');
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /ALLOW_PRIVATE_WEBHOOK_HOSTS=1 npm start/);
    assert.match(
      page.body,
      /src="http:\/\/127\.0\.0\.1:8080\/third-party\?token=rp_ust_\w+&amp;session_id=ses_\w+"/,
    );
    const [demo] = await t.db.query<{ allowed_origins: string[]; webhook_url: string | null }>(
      'SELECT allowed_origins, webhook_url FROM integrators WHERE name = $1',
      [DEMO_INTEGRATOR_NAME],
    );
    assert.deepEqual(demo, { allowed_origins: ['http://127.0.0.1:8080'], webhook_url: null });
  });

  it('never answers with a server token: the page, its script, the sessions and the webhook list', async () => {
    const answers = [
      await get(t, '/demo'),
      await get(t, '/demo/app.js'),
      await get(t, '/demo/style.css'),
      await get(t, '/demo/api/webhooks'),
      await post('/demo/api/sdk-session'),
      await post('/demo/api/hosted-session'),
    ];
    for (const answer of answers) {
      assert.equal(answer.statusCode, 200, answer.body);
      assert.doesNotMatch(answer.body, /rp_sandbox_/);
    }
    assert.match(answers[4]!.json().token, /^rp_ust_/);
    assert.equal((await get(t, '/demo/nothing')).statusCode, 404);
    // Not from a plain cross-site form: the session endpoints take JSON only.
    const form = await post('/demo/api/sdk-session', 'application/x-www-form-urlencoded', 'a=1');
    assert.equal(form.statusCode, 404);
  });

  it('another start reuses the demo integrator with a new token; a token ended meanwhile is replaced on the next call', async () => {
    await get(t, '/demo');
    const second = await startTestApp({ db: t.db, database: t.database, clock: t.clock });
    try {
      assert.equal((await get(second, '/demo')).statusCode, 200);
      const demos = await t.db.query<{ id: string }>('SELECT id FROM integrators WHERE name = $1', [
        DEMO_INTEGRATOR_NAME,
      ]);
      assert.equal(demos.length, 1);
      const valid = () =>
        t.db.query<{ id: string }>(
          `SELECT id FROM server_tokens WHERE integrator_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
          [demos[0]!.id, t.clock.now()],
        );
      assert.equal((await valid()).length, 2, 'the first start keeps its token for the grace period');
      // Both processes' tokens end (a rotation, say): each issues a new one when it is next refused.
      await t.db.query('UPDATE server_tokens SET expires_at = $2 WHERE integrator_id = $1', [
        demos[0]!.id,
        t.clock.now(),
      ]);
      t.clock.advance(1000);
      assert.equal((await get(t, '/demo')).statusCode, 200);
      assert.equal((await get(second, '/demo')).statusCode, 200);
      assert.ok((await valid()).length <= 2, 'never more than two valid tokens');
    } finally {
      await second.close();
    }
  });

  it('is not served outside sandbox, even when registered', async () => {
    const app = Fastify();
    app.decorate('ctx', { config: { serviceEnv: 'production' } } as never);
    await app.register(demoPlatform, { createIntegratorHandler });
    assert.equal((await app.inject({ method: 'GET', url: '/demo' })).statusCode, 404);
    await app.close();
  });
});
