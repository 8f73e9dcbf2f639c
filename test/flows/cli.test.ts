import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createTestDatabase,
  OPERATOR_TOKEN,
  RENTPAY_BIN,
  runCli,
  startTestApp,
  type TestApp,
  tokenHeader,
} from '../support/helpers.ts';

describe('rentpay CLI against a running server', () => {
  let t: TestApp;
  let url: string;
  before(async () => {
    t = await startTestApp();
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it('--help explains every command', async () => {
    const { code, stdout } = await runCli(['--help']);
    assert.equal(code, 0);
    for (const command of ['serve', 'worker', 'migrate', 'documents', 'integrator', 'smoke-stripe'])
      assert.match(stdout, new RegExp(`\\b${command}\\b`));
    const sub = await runCli(['integrator', '--help']);
    for (const command of ['create', 'update', 'list', 'show'])
      assert.match(sub.stdout, new RegExp(`\\b${command}\\b`));
    const create = await runCli(['integrator', 'create', '--help']);
    for (const option of [
      '--name',
      '--webhook-url',
      '--allowed-origin',
      '--fee',
      '--rate-limit',
      '--json',
      '--url',
      '--token',
    ]) {
      assert.ok(create.stdout.includes(option), option);
    }
  });

  it('integrator create --json prints one JSON object whose server token works', async () => {
    const { code, stdout } = await runCli([
      'integrator',
      'create',
      '--name',
      'Acme Lettings',
      '--webhook-url',
      'https://hooks.acme.example/rentpay',
      '--allowed-origin',
      'https://acme.example',
      '--allowed-origin',
      'https://app.acme.example',
      '--fee',
      'card=1.4%+0.20',
      '--json',
      '--url',
      url,
      '--token',
      OPERATOR_TOKEN,
    ]);
    assert.equal(code, 0);
    const created = JSON.parse(stdout);
    assert.match(created.integrator_id, /^int_/);
    assert.match(created.server_token, /^rp_sandbox_/);
    assert.match(created.webhook_secret, /^whsec_/);
    assert.deepEqual(created.allowed_origins, ['https://acme.example', 'https://app.acme.example']);
    assert.deepEqual(created.fees, { card: { percent: '1.40', fixed: '0.20' } });
    const response = await fetch(`${url}/api/third-party/integrator/`, {
      headers: tokenHeader(created.server_token),
    });
    assert.equal(response.status, 200);
  });

  it('integrator create in text form prints the three values; token from RENTPAY_OPERATOR_TOKEN', async () => {
    const { code, stdout } = await runCli(['integrator', 'create', '--name', 'Text Co', '--url', url], {
      RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
    });
    assert.equal(code, 0);
    assert.match(stdout, /integrator_id\s+int_/);
    assert.match(stdout, /server_token\s+rp_sandbox_/);
    assert.match(stdout, /webhook_secret\s+whsec_/);
  });

  it('integrator update, show and list', async () => {
    const { id } = await t.createIntegrator({ name: 'Old', webhook_url: 'https://a.example/h' });
    const updated = await runCli(
      [
        'integrator',
        'update',
        id,
        '--name',
        'New',
        '--no-webhook-url',
        '--rate-limit',
        '20',
        '--burst',
        '40',
        '--json',
      ],
      { RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN, RENTPAY_URL: url },
    );
    assert.equal(updated.code, 0, updated.stderr);
    const body = JSON.parse(updated.stdout);
    assert.equal(body.name, 'New');
    assert.equal(body.webhook_url, null);
    assert.equal(body.rate_limit_per_second, 20);
    assert.equal(body.rate_limit_burst, 40);
    const shown = await runCli(['integrator', 'show', id], {
      RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
      RENTPAY_URL: url,
    });
    assert.match(shown.stdout, /name\s+New/);
    assert.match(shown.stdout, /rate limit\s+20\/s, burst 40/);
    const listed = await runCli(['integrator', 'list', '--json'], {
      RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
      RENTPAY_URL: url,
    });
    assert.ok(JSON.parse(listed.stdout).some((i: { integrator_id: string }) => i.integrator_id === id));
  });

  it('says clearly what is wrong: bad token, bad input, no server, no token', async () => {
    const wrong = await runCli([
      'integrator',
      'list',
      '--url',
      url,
      '--token',
      'not-the-operator-token-at-all',
    ]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /401 unauthorized: Invalid operator token/);
    const invalid = await runCli(
      ['integrator', 'create', '--name', 'x', '--allowed-origin', 'nope', '--url', url],
      {
        RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
      },
    );
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /400 invalid request:\n\s+allowed_origins\.0: Enter an origin/);
    const badFee = await runCli(['integrator', 'create', '--name', 'x', '--fee', 'card=lots', '--url', url], {
      RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
    });
    assert.equal(badFee.code, 2);
    assert.match(badFee.stderr, /--fee "card=lots": write METHOD=PERCENT%\+FIXED/);
    const down = await runCli([
      'integrator',
      'list',
      '--url',
      'http://127.0.0.1:9',
      '--token',
      OPERATOR_TOKEN,
    ]);
    assert.equal(down.code, 2);
    assert.match(down.stderr, /Cannot reach http:\/\/127\.0\.0\.1:9/);
    const noToken = await runCli(['integrator', 'list', '--url', url], { RENTPAY_OPERATOR_TOKEN: '' });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /No operator token/);
  });
});

/** Starts `rentpay serve` and resolves with its stdout once the start-up banner is complete. */
function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; banner: string }> {
  const child = spawn(process.execPath, [RENTPAY_BIN, 'serve'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no banner within 60 s: ${out} ${err}`));
    }, 60_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('API reference:') && out.endsWith('\n\n')) {
        clearTimeout(timer);
        resolve({ child, banner: out });
      }
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${err}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('rentpay serve (the quick start)', () => {
  it('first start prints the operator token and a demo server token once; both work; SIGTERM stops it', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-serve-'));
    const env: Record<string, string> = { DATA_DIR: dataDir, OPERATOR_TOKEN: '' };
    if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
    try {
      const first = await startServe(env);
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(first.banner)?.[1]);
      assert.ok(port > 0, first.banner);
      const operatorToken = /\n\s+(rpo_[A-Za-z0-9]+)\n/.exec(first.banner)?.[1];
      const serverToken = /server token \(shown once\):\n\s+(rp_sandbox_[A-Za-z0-9]+)/.exec(
        first.banner,
      )?.[1];
      assert.ok(operatorToken && serverToken, first.banner);
      assert.match(first.banner, /curl -H "Authorization: Token rp_sandbox_/);
      assert.match(first.banner, /Dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard /);
      const link =
        /dashboard admin \(admin@demo-platform\.example\): set up a sign-in within 72 hours, once:\n\s+(\S+\/dashboard\/setup#invite=rpi_[A-Za-z0-9]{40})\n/.exec(
          first.banner,
        )?.[1];
      assert.ok(link, first.banner);
      const invite = await fetch(`http://127.0.0.1:${port}/api/dashboard/setup/invite/`, {
        method: 'POST',
        headers: { origin: new URL(link).origin, 'content-type': 'application/json' },
        body: JSON.stringify({ invite: link.split('#invite=')[1] }),
      });
      assert.equal(invite.status, 200);
      assert.deepEqual([(await invite.json()).role], ['admin']);
      const whoami = await fetch(`http://127.0.0.1:${port}/api/third-party/integrator/`, {
        headers: tokenHeader(serverToken),
      });
      assert.equal(whoami.status, 200);
      assert.equal((await whoami.json()).name, 'Demo platform');
      const listed = await runCli([
        'integrator',
        'list',
        '--url',
        `http://127.0.0.1:${port}`,
        '--token',
        operatorToken,
      ]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /Demo platform/);
      assert.equal(await stop(first.child), 0);

      const second = await startServe(env);
      assert.doesNotMatch(
        second.banner,
        /rpo_|rp_sandbox_|rpi_/,
        'secrets are printed only on the first start',
      );
      const port2 = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(second.banner)?.[1]);
      const again = await fetch(`http://127.0.0.1:${port2}/api/third-party/integrator/`, {
        headers: tokenHeader(serverToken),
      });
      assert.equal(again.status, 200, 'the demo token survives a restart');
      assert.equal(await stop(second.child), 0);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
