import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
/**
 * `rentpay listen` as a child process against `rentpay serve` (another child process, started without any
 * private-address setting): a sandbox payment's `payment_success` reaches a loopback URL signed with the secret
 * listen printed; after the service restarts, listen reconnects and forwards the next event, never one twice.
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { IntegratorService } from '../../src/integrators/service.ts';
import { systemClock } from '../../src/platform/clock/clock.ts';
import { openDatabase } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { createTestDatabase, pgliteDataDir, RENTPAY_BIN, type TestDatabase } from '../support/helpers.ts';
import { freePort } from '../support/pg-cluster.ts';
import { Receiver, verify } from '../support/webhook-receiver.ts';

const WAIT_MS = 60_000;

/** A child process's output as it comes, with a wait for a line matching a pattern. */
class Output {
  text = '';
  #waiters: (() => void)[] = [];
  constructor(stream: NodeJS.ReadableStream) {
    stream.on('data', (chunk) => {
      this.text += chunk;
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }
  async waitFor(pattern: RegExp, what: string): Promise<RegExpMatchArray> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const match = this.text.match(pattern);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`${what} did not appear: ${this.text}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 250).unref();
      });
    }
  }
}

let database: TestDatabase;
let dataDir: string;
let port: number;
let base: string;
let serverToken: string;
let receiver: Receiver;
const children: ChildProcess[] = [];

function env(): Record<string, string> {
  const values: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WORKER_POLL_INTERVAL_MS: '50',
  };
  // The service never connects to this machine's listener: no private-address setting.
  delete values.ALLOW_PRIVATE_WEBHOOK_HOSTS;
  delete values.DATABASE_URL;
  if (database.databaseUrl) values.DATABASE_URL = database.databaseUrl;
  return values;
}

async function startServe(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [RENTPAY_BIN, 'serve'], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const errors = new Output(child.stderr!);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return child;
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${errors.text}`);
    if (Date.now() > deadline) throw new Error(`serve not ready: ${errors.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
}

async function api(method: string, url: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      // The Integration API's scheme is Token; the Client API's (a user session) is Bearer.
      authorization: url.startsWith('/api/client') ? `Bearer ${token}` : `Token ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = { status: response.status, body: await response.json() };
  assert.ok(response.ok, `${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

before(async () => {
  database = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-listen-'));
  await pgliteDataDir(dataDir);
  const setup = await openDatabase({ databaseUrl: database.databaseUrl, dataDir });
  await migrate(setup);
  const created = await new IntegratorService(setup, systemClock, 'sandbox').create(
    { name: 'Listen test' },
    SYSTEM_ACTOR,
  );
  serverToken = created.serverToken;
  await setup.close();
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  receiver = await Receiver.start();
});

after(async () => {
  for (const child of children) await stop(child);
  await receiver.close();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('rentpay listen', () => {
  it('forwards a sandbox payment’s payment_success, verified; reconnects after a restart; never twice', async () => {
    let serve = await startServe();
    // An event from before listen starts is not forwarded.
    await api('POST', '/api/third-party/webhook-endpoint/test/', serverToken);

    const listen = spawn(
      process.execPath,
      [RENTPAY_BIN, 'listen', '--forward-to', receiver.url, '--url', base, '--token', serverToken],
      { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(listen);
    const out = new Output(listen.stdout!);
    const [, secret] = await out.waitFor(/Ready\. Signing secret: (whsec_\S+)/, 'the Ready line');

    await api('POST', '/api/third-party/onboarding/', serverToken, [
      userBody({
        user_id: 1,
        email: 'listen@example.com',
        tenant: [tenancyBody({ payment_reference: 'LISTEN-1' })],
      }),
    ]);
    const login = await api('POST', '/api/third-party/user-login/', serverToken, {
      email: 'listen@example.com',
    });
    const tokenised = await fetch(`${base}/sandbox/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '987' }),
    }).then((response) => response.json());
    const paid = await api('POST', '/api/client/payments', login.token, {
      pure_amount: '1200.00',
      method: 'card',
      card_token: tokenised.token,
      idempotency_key: 'listen-1',
    });
    assert.equal(paid.status, 'succeeded');

    await receiver.waitFor(1, WAIT_MS);
    const [delivery] = receiver.received;
    assert.equal(delivery!.path, '/hooks');
    const body = verify(secret!, delivery!, new Date()) as {
      type: string;
      data: { payment: { payment_id: string } };
    };
    assert.equal(body.type, 'payment_success');
    assert.equal(body.data.payment.payment_id, paid.payment_id);
    await out.waitFor(
      new RegExp(`payment_success  ${delivery!.headers['webhook-id']}  -> 200`),
      'the forward line',
    );

    await stop(serve);
    await out.waitFor(/Lost http:\/\/127\.0\.0\.1:\d+ /, 'the lost-connection line');
    serve = await startServe();
    await out.waitFor(/Reconnected to /, 'the reconnected line');
    const ping = await api('POST', '/api/third-party/webhook-endpoint/test/', serverToken);
    await receiver.waitFor(2, WAIT_MS);
    const second = receiver.received[1]!;
    assert.equal(second.headers['webhook-id'], ping.event_id);
    verify(secret!, second, new Date());

    // Polls come one after another, each forwarding in order: had any poll sent an event again, it would
    // arrive before this last one.
    const last = await api('POST', '/api/third-party/webhook-endpoint/test/', serverToken);
    await receiver.waitFor(3, WAIT_MS);
    assert.deepEqual(receiver.ids(), [delivery!.headers['webhook-id'], ping.event_id, last.event_id]);
  });
});
