/**
 * A production install: the server compiled to JavaScript, the web build prebuilt, `npm ci --omit=dev` (no tsx,
 * Vite or TypeScript), started with SERVICE_ENV=production and Stripe live keys (Stripe being the local stand-in).
 * It serves the page and the SDK and takes a payment end to end.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { type PgCluster, startPgCluster } from '../support/pg-cluster.ts';
import { STRIPE_WEBHOOK_SECRET } from '../support/stripe-app.ts';
import { StripeStandIn } from '../support/stripe-server.ts';

const run = promisify(execFile);
const OPERATOR = 'rpo_live_operator_token_0123456789abcdef';
let dir: string;
let stand: StripeStandIn;
/** Production runs on PostgreSQL only: a server of this file's own. */
let database: PgCluster;
let stdout = '';
let server: ChildProcess;
let base: string;

/** Resolves with the service's URL once it prints that it is listening. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      stdout += chunk.toString('utf8');
      const found = /rentpay is listening on (http:\/\/\S+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
  });
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-production-'));
  await run('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', path.join(dir, 'dist')]);
  await run(process.execPath, ['scripts/copy-server-assets.mjs', path.join(dir, 'dist')]);
  for (const file of ['package.json', 'package-lock.json', 'bin', 'migrations', 'examples']) {
    fs.cpSync(file, path.join(dir, file), { recursive: true });
  }
  fs.cpSync('web/dist', path.join(dir, 'web/dist'), { recursive: true });
  await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir });
  stand = await StripeStandIn.start();
  database = await startPgCluster();
  server = spawn(process.execPath, ['bin/rentpay.mjs', 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      SERVICE_ENV: 'production',
      DOCUMENT_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
      PORT: '0',
      DATABASE_URL: database.url,
      PUBLIC_URL: 'https://pay.example.com',
      HOST: '127.0.0.1',
      DATA_DIR: path.join(dir, 'data'),
      OPERATOR_TOKEN: OPERATOR,
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_live_rentpay_standin',
      STRIPE_PUBLISHABLE_KEY: 'pk_live_rentpay_standin',
      STRIPE_WEBHOOK_SECRET,
      STRIPE_API_BASE: stand.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await listening(server);
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await stand?.close();
  database?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, url: string, auth?: string, body?: unknown) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type') ?? '', text };
}

describe('a production install without dev dependencies', () => {
  it('has no tsx, Vite or TypeScript installed', () => {
    for (const name of ['tsx', 'vite', 'typescript', 'preact', 'playwright-core']) {
      assert.equal(fs.existsSync(path.join(dir, 'node_modules', name)), false, name);
    }
  });

  it('prints no secret when it starts (the operator token is configured, never made up)', () => {
    assert.match(
      stdout,
      /rentpay is listening on http:\/\/127\.0\.0\.1:\d+ \(production; database: PostgreSQL/,
    );
    assert.doesNotMatch(stdout, /rpo_|rp_live_|[Tt]oken/);
  });

  it('serves the page and the SDK, and no sandbox or demo routes', async () => {
    assert.equal((await call('GET', '/healthz')).status, 200);
    const page = await call('GET', '/third-party');
    assert.equal(page.status, 200);
    assert.match(page.type, /text\/html/);
    const sdk = await call('GET', '/sdk/rentpay.js');
    assert.equal(sdk.status, 200);
    assert.match(sdk.type, /javascript/);
    for (const url of ['/demo', '/sandbox/tokens', '/api/third-party/sandbox/run-schedules/']) {
      assert.equal((await call('POST', url)).status, 404, url);
    }
  });

  it('takes a card payment through Stripe from onboarding to a completed session', async () => {
    const created = await call('POST', '/api/operator/integrators', `Bearer ${OPERATOR}`, {
      name: 'Live platform',
    });
    assert.equal(created.status, 201, created.text);
    const token = JSON.parse(created.text).server_token as string;
    assert.match(token, /^rp_live_/);
    const server = `Token ${token}`;
    const onboarded = await call(
      'POST',
      '/api/third-party/onboarding/',
      server,
      userBody({
        user_id: 1,
        email: 'live@example.com',
        tenant: [tenancyBody({ payment_reference: 'LIVE-1' })],
      }),
    );
    assert.equal(onboarded.status, 201, onboarded.text);
    const login = JSON.parse(
      (await call('POST', '/api/third-party/user-login/', server, { email: 'live@example.com' })).text,
    );
    const paid = await call('POST', '/api/client/payments', `Bearer ${login.token}`, {
      pure_amount: '1200.00',
      method: 'card',
      confirmation_token: stand.createConfirmationToken('pm_card_visa').id,
      idempotency_key: 'live-1',
    });
    assert.equal(paid.status, 201, paid.text);
    assert.equal(JSON.parse(paid.text).status, 'succeeded');
    const session = JSON.parse(
      (await call('GET', `/api/third-party/session/${login.session_id}/`, server)).text,
    );
    assert.equal(session.status, 'completed');
  });
});
