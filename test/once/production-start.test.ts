/**
 * Starting in production: what is unsafe is refused (every problem at once, a line each naming its variable, exit 2),
 * `migrate` needs only the database, and a database or port that does not work is one line naming the variable,
 * never a stack trace. The processes are the real CLI, against a PostgreSQL server of this file's own.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, configWarnings, loadConfig } from '../../src/platform/config/config.ts';
import { PRODUCTION_ENV } from '../support/fixtures.ts';
import { runRentpay } from '../support/helpers.ts';
import { freePort, type PgCluster, startPgCluster } from '../support/pg-cluster.ts';

/** A production configuration that starts: each case below takes one thing away. */
const PRODUCTION = PRODUCTION_ENV;

function refused(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

/** The CLI with only PATH and `env`: nothing of this machine's environment leaks in. */
const rentpay = (args: string[], env: Record<string, string>) =>
  runRentpay(args, { PATH: process.env.PATH ?? '', ...env });

describe('production refuses what is unsafe', () => {
  for (const [variable, change, message] of [
    [
      'DATABASE_URL',
      { DATABASE_URL: undefined },
      "Invalid configuration: DATABASE_URL is required in production: the postgres:// URL of the database every node shares (the embedded database keeps data on one machine's disk)",
    ],
    [
      'PUBLIC_URL',
      { PUBLIC_URL: undefined },
      'Invalid configuration: PUBLIC_URL is required in production: the https:// address tenants, your platforms and Stripe reach rentpay at, e.g. https://pay.example.com',
    ],
    [
      'PUBLIC_URL',
      { PUBLIC_URL: 'http://pay.example.com' },
      'Invalid configuration: PUBLIC_URL must be an https:// URL in production (got "http://pay.example.com")',
    ],
    [
      'OPERATOR_TOKEN',
      { OPERATOR_TOKEN: undefined },
      'Invalid configuration: OPERATOR_TOKEN is required in production (at least 24 characters, e.g. the output of "openssl rand -base64 32"): production never generates a secret',
    ],
  ] as const) {
    it(`${variable}: ${JSON.stringify(change)} is refused, naming it`, () => {
      const error = refused({ ...PRODUCTION, ...change });
      assert.equal(error.variable, variable);
      assert.equal(error.message, message);
    });
  }

  it('the same settings start a sandbox: it keeps the embedded database and makes up what is missing', () => {
    const config = loadConfig({ SERVICE_ENV: 'sandbox' });
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(config.operatorToken, undefined);
  });

  it('a production HOST on loopback starts, with a warning that a load balancer cannot reach it', () => {
    assert.deepEqual(configWarnings(loadConfig({ ...PRODUCTION, HOST: '0.0.0.0' })), []);
    assert.deepEqual(configWarnings(loadConfig({ ...PRODUCTION, HOST: undefined })), [
      "HOST=127.0.0.1 listens on this machine's loopback interface only: a load balancer or proxy on another machine cannot reach it (set HOST=0.0.0.0)",
    ]);
    assert.deepEqual(configWarnings(loadConfig({ HOST: '127.0.0.1' })), [], 'not in sandbox');
  });

  it('DATABASE_POOL_SIZE: 20 by default, a whole number from 1 to 1000', () => {
    assert.equal(loadConfig({}).databasePoolSize, 20);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '50' }).databasePoolSize, 50);
    assert.match(
      refused({ DATABASE_POOL_SIZE: '0' }).message,
      /DATABASE_POOL_SIZE must be a whole number from 1 to 1000/,
    );
  });

  it('`rentpay serve` reports every problem at once, a line each, exit 2, and touches nothing', async () => {
    const dataDir = path.join(os.tmpdir(), `rentpay-never-created-${process.pid}`);
    const result = await rentpay(['serve'], {
      SERVICE_ENV: 'production',
      PORT: 'eighty',
      PUBLIC_URL: 'http://pay.example.com',
      STRIPE_SECRET_KEY: 'sk_test_abc',
      DATA_DIR: dataDir,
    });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.deepEqual(result.stderr.trimEnd().split('\n'), [
      'rentpay: Invalid configuration: PORT must be a whole number from 0 to 65535 (got "eighty")',
      "rentpay: Invalid configuration: DATABASE_URL is required in production: the postgres:// URL of the database every node shares (the embedded database keeps data on one machine's disk)",
      'rentpay: Invalid configuration: PUBLIC_URL must be an https:// URL in production (got "http://pay.example.com")',
      'rentpay: Invalid configuration: OPERATOR_TOKEN is required in production (at least 24 characters, e.g. the output of "openssl rand -base64 32"): production never generates a secret',
      'rentpay: Invalid configuration: PAYMENT_PROCESSOR must be "stripe" when SERVICE_ENV=production (the sandbox processor never runs in production)',
      'rentpay: Invalid configuration: DOCUMENT_ENCRYPTION_KEY is required in production: 32 random bytes in base64 (e.g. the output of "openssl rand -base64 32"), the same on every node',
    ]);
    assert.equal(fs.existsSync(dataDir), false);
  });
});

describe('starting against a database or port that does not work', () => {
  let cluster: PgCluster;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const base = (database: string, user = 'postgres') =>
    `postgres://${user}@127.0.0.1:${cluster.port}/${database}`;

  before(async () => {
    cluster = await startPgCluster();
  });
  after(() => {
    for (const child of children) child.kill('SIGKILL');
    cluster?.destroy();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('`rentpay migrate` in production needs only DATABASE_URL (no Stripe keys, no public URL)', async () => {
    const result = await rentpay(['migrate'], { SERVICE_ENV: 'production', DATABASE_URL: base('postgres') });
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Applied \d+ migration\(s\): 001_foundation\.sql, /);
    const again = await rentpay(['migrate'], { SERVICE_ENV: 'production', DATABASE_URL: base('postgres') });
    assert.match(again.stdout, /^Database is up to date \(\d+ migrations\)\.\n$/);
  });

  it('`rentpay migrate` in production without DATABASE_URL is refused before anything is written', async () => {
    const result = await rentpay(['migrate'], { SERVICE_ENV: 'production', DATA_DIR: 'memory://' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^rentpay: Invalid configuration: DATABASE_URL is required in production/);
  });

  for (const [what, url, line] of [
    [
      'a database that does not exist',
      () => base('rentpay_missing'),
      () =>
        `rentpay: Cannot start: DATABASE_URL names the database "rentpay_missing", which does not exist on 127.0.0.1:${cluster.port}: create it`,
    ],
    [
      'a role that does not exist',
      () => base('postgres', 'ghost'),
      () =>
        `rentpay: Cannot start: DATABASE_URL is refused by 127.0.0.1:${cluster.port}: role "ghost" does not exist`,
    ],
  ] as const) {
    it(`${what}: one line naming DATABASE_URL, exit 2`, async () => {
      const result = await rentpay(['migrate'], { DATABASE_URL: url() });
      assert.equal(result.code, 2);
      assert.equal(result.stderr, `${line()}\n`);
    });
  }

  it('nothing listening at the database’s address: one line naming DATABASE_URL, exit 2, from serve and worker', async () => {
    const port = await freePort();
    for (const command of ['serve', 'worker', 'migrate']) {
      const result = await rentpay([command], {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/rentpay`,
      });
      assert.equal(result.code, 2, command);
      assert.equal(
        result.stderr,
        `rentpay: Cannot start: DATABASE_URL points at 127.0.0.1:${port}, where nothing accepts connections: is PostgreSQL running there?\n`,
        command,
      );
    }
  });

  it('a port already in use: one line naming PORT, exit 2, for serve and for the worker’s health port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      for (const command of ['serve', 'worker']) {
        const result = await rentpay([command], { DATABASE_URL: base('postgres'), PORT: String(port) });
        assert.equal(result.code, 2, `${command}: ${result.stderr}`);
        assert.equal(
          result.stderr,
          `rentpay: Cannot start: PORT ${port}: another process already listens on 127.0.0.1:${port}\n`,
          command,
        );
      }
    } finally {
      taken.close();
    }
  });
});
