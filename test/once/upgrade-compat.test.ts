/**
 * A rolling upgrade: the new release's migrations run first, then nodes are replaced one by one, so for a while the
 * previous release serves requests on the new schema. This file proves the newest migration(s) are expand-only for
 * that release: on a PostgreSQL server of its own, `rentpay migrate` of this checkout, then `rentpay serve` of the
 * previous release (the commit before the newest migration file was added, from git) creates an integrator,
 * onboards a tenant whose agreement its worker stores, takes a sandbox card payment that completes the session and
 * refunds part of it; then this checkout's `serve` on the same database reads back what the old one wrote.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runRentpay } from '../support/helpers.ts';
import { type PgCluster, startPgCluster } from '../support/pg-cluster.ts';
import { send, stopServe } from './serve-process.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any;

const OPERATOR = 'rpo_upgrade_compat_operator_token_012345';
// A fixed public address, as behind a load balancer: the sandbox serves its sample agreement at this URL from
// memory, so the worker stores the agreement without reaching the network.
const PUBLIC_URL = 'http://127.0.0.1:8080';
const AGREEMENT = `${PUBLIC_URL}/sandbox/documents/sample-agreement.pdf`;
const EMAIL = 'upgrade@example.com';
const USER_ID = 4200;
const NEEDS_HISTORY =
  "test/once/upgrade-compat.test.ts needs the repository's git history to find the previous release (the commit " +
  'before the newest migration was added); in a shallow clone run `git fetch --unshallow` first.';

function git(args: string[]): string {
  const result = spawnSync('git', args, { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    assert.fail(`git ${args.join(' ')} failed: ${result.error?.message ?? result.stderr}\n${NEEDS_HISTORY}`);
  }
  return result.stdout.trim();
}

/** The newest migration file and the commit of the code as it was before that file was added. */
function previousRelease(): { newest: string; commit: string } {
  const newest = fs
    .readdirSync('migrations')
    .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
    .sort()
    .at(-1);
  assert.ok(newest, 'no migrations/*.sql');
  if (git(['rev-parse', '--is-shallow-repository']) !== 'false') assert.fail(NEEDS_HISTORY);
  const added = git(['log', '--diff-filter=A', '--format=%H', '-1', '--', `migrations/${newest}`]);
  // A migration not committed yet (being written now): the committed code is the previous release.
  const commit = git(['rev-parse', '--verify', `${added ? `${added}^` : 'HEAD'}^{commit}`]);
  return { newest, commit };
}

const rentpay = runRentpay;

describe('the previous release on the new schema', { timeout: 10 * 60_000 }, () => {
  let release: { newest: string; commit: string };
  let oldTree: string;
  let dataDir: string;
  let cluster: PgCluster;
  const children = new Set<ChildProcess>();
  let base: string;
  /** What the running serve printed (its errors are logged at LOG_LEVEL=warn): shown when an answer is wrong. */
  let log = '';

  /** `rentpay serve` from `cwd`, resolved once it prints that it listens (its address then in `base`). */
  function startServe(cwd: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['bin/rentpay.mjs', 'serve'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: cluster.url,
        PORT: '0',
        PUBLIC_URL,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        OPERATOR_TOKEN: OPERATOR,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    log = '';
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        log += chunk;
        const found = /rentpay is listening on (http:\/\/\S+) \(sandbox; database: PostgreSQL/.exec(log);
        if (found) {
          base = found[1]!;
          resolve(child);
        }
      });
      child.stderr.on('data', (chunk) => {
        log += chunk;
      });
      child.once('exit', (code) =>
        reject(new Error(`serve in ${cwd} exited with ${code} before listening:\n${log}`)),
      );
    });
  }

  async function call(method: string, route: string, auth?: string, body?: unknown, headers = {}) {
    const response = await send(base, method, route, auth, body, headers);
    const text = await response.text();
    // The serve logs an error just after answering: wait (a little) for that line, for the assertion's message.
    const requestId = response.headers.get('x-request-id');
    if (response.status >= 500 && requestId) {
      for (const deadline = Date.now() + 5000; !log.includes(requestId) && Date.now() < deadline; ) {
        await delay(20);
      }
    }
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: response.status, body: json };
  }
  /** An answer and the serve's log, for an assertion's message. */
  const said = (answer: { body: Json }) => `${JSON.stringify(answer.body)}\nserve's log:\n${log}`;
  const operator = (method: string, route: string, body?: unknown, headers = {}) =>
    call(method, `/api/operator${route}`, `Bearer ${OPERATOR}`, body, headers);

  before(async () => {
    release = previousRelease();
    oldTree = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-previous-release-'));
    const archive = path.join(oldTree, 'release.tar');
    git(['archive', '--format=tar', '-o', archive, release.commit]);
    const untar = spawnSync('tar', ['-x', '-f', archive, '-C', oldTree], { encoding: 'utf8' });
    assert.equal(untar.status, 0, untar.stderr);
    fs.rmSync(archive);
    assert.equal(
      fs.existsSync(path.join(oldTree, 'migrations', release.newest)),
      false,
      `the previous release ${release.commit} already has ${release.newest}`,
    );
    // The old code runs with this checkout's dependencies, not its own lockfile's: acceptable, since dependency
    // changes ship separately from schema changes, and what this file checks is the old code's SQL.
    fs.symlinkSync(path.resolve('node_modules'), path.join(oldTree, 'node_modules'), 'dir');
    dataDir = path.join(oldTree, 'data');
    cluster = await startPgCluster();
  });

  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    cluster?.destroy();
    if (oldTree) {
      // Unlinked first so that removing the folder can never reach into the checkout's node_modules.
      fs.rmSync(path.join(oldTree, 'node_modules'), { force: true });
      fs.rmSync(oldTree, { recursive: true, force: true });
    }
  });

  let integratorId: string;
  let server: string;
  let sessionId: string;
  let paid: Json;

  it("serves an ordinary day's requests after the new release's migrations", async () => {
    const migrated = await rentpay(['migrate'], { PATH: process.env.PATH ?? '', DATABASE_URL: cluster.url });
    assert.equal(migrated.code, 0, `${migrated.stdout}\n${migrated.stderr}`);
    assert.match(migrated.stdout, /^Applied \d+ migration\(s\): /);
    assert.ok(migrated.stdout.includes(release.newest), migrated.stdout);

    const old = await startServe(oldTree);
    const created = await operator('POST', '/integrators', { name: 'Upgrade check' });
    assert.equal(created.status, 201, said(created));
    integratorId = created.body.integrator_id;
    server = `Token ${created.body.server_token}`;

    const onboarded = await call(
      'POST',
      '/api/third-party/onboarding/',
      server,
      userBody({
        user_id: USER_ID,
        email: EMAIL,
        tenant: [
          tenancyBody({ payment_reference: 'UPGRADE-1', end_rent_date: '2030-12-31', agreement: AGREEMENT }),
        ],
      }),
    );
    assert.equal(onboarded.status, 201, said(onboarded));
    const login = await call('POST', '/api/third-party/user-login/', server, { email: EMAIL });
    assert.equal(login.status, 200, said(login));
    sessionId = login.body.session_id;

    const card = await call('POST', '/sandbox/tokens', undefined, {
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
    });
    assert.equal(card.status, 201, said(card));
    const payment = await call('POST', '/api/client/payments', `Bearer ${login.body.token}`, {
      pure_amount: '1200.00',
      method: 'card',
      idempotency_key: 'upgrade-compat-1',
      card_token: card.body.token,
    });
    assert.equal(payment.status, 201, said(payment));
    assert.equal(payment.body.status, 'succeeded', said(payment));
    paid = payment.body;

    const refund = await operator(
      'POST',
      `/payments/${paid.payment_id}/refunds`,
      { amount: '200.00' },
      { 'idempotency-key': 'upgrade-compat-refund-1' },
    );
    assert.equal(refund.status, 201, said(refund));
    assert.equal(refund.body.status, 'succeeded', said(refund));

    // The old worker fetches and stores the agreement in the background; the session shows when.
    for (const deadline = Date.now() + 120_000; ; await delay(200)) {
      const view = await call('GET', `/api/third-party/session/${sessionId}/`, server);
      assert.equal(view.status, 200, said(view));
      assert.equal(view.body.status, 'completed');
      const agreement = view.body.tenancy.agreement_document;
      assert.notEqual(agreement.state, 'failed', JSON.stringify(agreement));
      if (agreement.state === 'stored') break;
      if (Date.now() > deadline) assert.fail(`the agreement was not stored: ${JSON.stringify(agreement)}`);
    }
    await stopServe(old);
  });

  it('and the new release reads back what the previous one wrote', async () => {
    assert.ok(paid, 'the previous release took no payment');
    const current = await startServe(process.cwd());

    const one = await operator('GET', `/payments/${paid.payment_id}`);
    assert.equal(one.status, 200, said(one));
    const { payment_id, status, pure_amount, fee, amount, card, session_id } = one.body;
    assert.deepEqual(
      { payment_id, status, pure_amount, fee, amount, card, session_id },
      {
        payment_id: paid.payment_id,
        status: 'succeeded',
        pure_amount: '1200.00',
        fee: paid.fee,
        amount: paid.amount,
        card: paid.card,
        session_id: sessionId,
      },
    );
    assert.equal(one.body.integrator_id, integratorId);
    assert.equal(one.body.refunded, '200.00');

    const listed = await operator('GET', `/payments?integrator_id=${integratorId}`);
    assert.equal(listed.status, 200, said(listed));
    assert.deepEqual(
      listed.body.data.map((p: Json) => p.payment_id),
      [paid.payment_id],
    );
    const own = await call('GET', `/api/third-party/payments/?user_id=${USER_ID}`, server);
    assert.equal(own.status, 200, said(own));
    assert.deepEqual(
      own.body.data.map((p: Json) => [p.payment_id, p.status, p.refunded]),
      [[paid.payment_id, 'succeeded', '200.00']],
    );

    const session = await call('GET', `/api/third-party/session/${sessionId}/`, server);
    assert.equal(session.status, 200, said(session));
    assert.equal(session.body.status, 'completed');
    assert.equal(session.body.tenancy.agreement_document.state, 'stored');

    const integrator = await operator('GET', `/integrators/${integratorId}`);
    assert.equal(integrator.status, 200, said(integrator));
    assert.equal(integrator.body.name, 'Upgrade check');
    await stopServe(current);
  });
});
