/**
 * The backup and restore drill of docs/operations.md, on a PostgreSQL server of the test's own (never the shared
 * one): `rentpay migrate` and `rentpay serve` as real processes, a tenant onboarded with an agreement, two sandbox
 * card payments and a refund through the HTTP APIs; serve stopped; `pg_dump -Fc`; the database dropped and created
 * again; `pg_restore --no-owner`; serve started again with the same DOCUMENT_ENCRYPTION_KEY. Then the payments, the
 * refund, the events, the tenancy's ledger and the stored agreement read back identically, and
 * `rentpay payouts reconcile` exits 0.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { SAMPLE_AGREEMENT_PATH } from '../../src/sandbox/sample-documents.ts';
import { UNLIMITED } from '../support/api-client.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { RENTPAY_BIN, runRentpay } from '../support/helpers.ts';
import { freePort, type PgCluster, startPgCluster } from '../support/pg-cluster.ts';
import { send, stopServe } from './serve-process.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any;

const OPERATOR = 'rpo_restore_drill_operator_token_0123456789';
const EMAIL = 'restore@example.com';
const REFERENCE = 'RESTORE-1';

/** The CLI with this process's environment and `env`. */
const rentpay = (args: string[], env: Record<string, string>) =>
  runRentpay(args, { ...(process.env as Record<string, string>), ...env });

describe('backup and restore drill', { timeout: 900_000 }, () => {
  let cluster: PgCluster;
  let dataDir: string;
  let serve: ChildProcess | undefined;
  let base: string;
  let env: Record<string, string>;

  /** `rentpay serve`, resolved once its banner says it listens. */
  async function startServe(): Promise<void> {
    const child = spawn(process.execPath, [RENTPAY_BIN, 'serve'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    serve = child;
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes(`rentpay is listening on ${base} (sandbox; database: PostgreSQL`)) resolve();
      });
      child.once('exit', (code) =>
        reject(new Error(`serve exited ${code} before listening:\n${stdout}\n${stderr}`)),
      );
    });
  }

  async function stopThisServe(): Promise<void> {
    const child = serve!;
    serve = undefined;
    await stopServe(child);
  }

  async function call(method: string, route: string, auth?: string, body?: unknown, headers = {}) {
    const response = await send(base, method, route, auth, body, headers);
    const bytes = Buffer.from(await response.arrayBuffer());
    let json: Json;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, body: json, bytes };
  }
  const operator = (method: string, route: string, body?: unknown, headers = {}) =>
    call(method, `/api/operator${route}`, `Bearer ${OPERATOR}`, body, headers);

  before(async () => {
    cluster = await startPgCluster();
    cluster.client('createdb', ['rentpay']);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-restore-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      SERVICE_ENV: 'sandbox',
      DATABASE_URL: `postgres://postgres@127.0.0.1:${cluster.port}/rentpay`,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      OPERATOR_TOKEN: OPERATOR,
      DOCUMENT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      DOCUMENT_ENCRYPTION_PREVIOUS_KEYS: '',
      PAYMENT_PROCESSOR: '',
      REDIS_URL: '',
      METRICS_TOKEN: '',
      LOG_LEVEL: 'warn',
    };
  });

  after(async () => {
    serve?.kill('SIGKILL');
    cluster?.destroy();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('restores a pg_dump into a new database: payments, refund, ledger and documents read back the same', async () => {
    const migrated = await rentpay(['migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /^Applied \d+ migration\(s\)/);
    await startServe();

    const created = await operator('POST', '/integrators', { name: 'Restore drill platform', ...UNLIMITED });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const integratorId: string = created.body.integrator_id;
    const server = `Token ${created.body.server_token}`;
    const onboarded = await call('POST', '/api/third-party/onboarding/', server, [
      userBody({
        user_id: 4100,
        email: EMAIL,
        tenant: [
          tenancyBody({
            payment_reference: REFERENCE,
            end_rent_date: '2030-12-31',
            agreement: `${base}${SAMPLE_AGREEMENT_PATH}`,
          }),
        ],
      }),
    ]);
    assert.equal(onboarded.status, 201, JSON.stringify(onboarded.body));

    const login = async () => {
      const answer = await call('POST', '/api/third-party/user-login/', server, { email: EMAIL });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body as { token: string; session_id: string };
    };
    const pay = async (pureAmount: string) => {
      const { token } = await login();
      const card = await call('POST', '/sandbox/tokens', undefined, {
        number: '4242424242424242',
        exp_month: 12,
        exp_year: 2030,
        cvc: '123',
      });
      assert.equal(card.status, 201, JSON.stringify(card.body));
      const paid = await call('POST', '/api/client/payments', `Bearer ${token}`, {
        pure_amount: pureAmount,
        method: 'card',
        idempotency_key: `restore-${randomBytes(6).toString('hex')}`,
        card_token: card.body.token,
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'succeeded');
      return paid.body.payment_id as string;
    };
    const payments = [await pay('1200.00'), await pay('650.00')];
    const refund = await operator(
      'POST',
      `/payments/${payments[0]}/refunds`,
      { amount: '200.00' },
      { 'idempotency-key': 'restore-drill-refund-1' },
    );
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'succeeded');

    // The agreement is fetched and stored by serve's worker; the session query shows when.
    let documentId: string | undefined;
    for (const deadline = Date.now() + 120_000; documentId === undefined; ) {
      const { session_id } = await login();
      const view = await call('GET', `/api/third-party/session/${session_id}/`, server);
      const agreement = view.body.tenancy.agreement_document;
      assert.notEqual(agreement.state, 'failed', JSON.stringify(agreement));
      if (agreement.state === 'stored') documentId = agreement.document_id;
      else if (Date.now() > deadline)
        assert.fail(`the agreement was not stored: ${JSON.stringify(agreement)}`);
      else await delay(200);
    }

    const today = new Date().toISOString().slice(0, 10);
    /** Everything the drill compares, read through the APIs. */
    const readBack = async () => {
      const read = async (answer: Promise<{ status: number; body: Json }>) => {
        const { status, body } = await answer;
        assert.equal(status, 200, JSON.stringify(body));
        return body;
      };
      const document = await call('GET', `/api/third-party/documents/${documentId}/`, server);
      assert.equal(document.status, 200, document.bytes.toString('utf8'));
      return {
        payments: await Promise.all(payments.map((id) => read(operator('GET', `/payments/${id}`)))),
        operatorList: await read(operator('GET', `/payments?integrator_id=${integratorId}`)),
        integrationList: await read(call('GET', '/api/third-party/payments/?user_id=4100', server)),
        ledger: await read(
          call('GET', `/api/third-party/ledger/?payment_reference=${REFERENCE}&as_of=${today}`, server),
        ),
        events: await read(operator('GET', `/webhooks/events?integrator_id=${integratorId}&limit=100`)),
        document: {
          contentType: document.headers.get('content-type'),
          sha256: createHash('sha256').update(document.bytes).digest('hex'),
        },
      };
    };
    const before = await readBack();
    assert.deepEqual(
      before.payments.map((p: Json) => [p.status, p.pure_amount, p.refunded]),
      [
        ['succeeded', '1200.00', '200.00'],
        ['succeeded', '650.00', '0.00'],
      ],
    );
    // Payments of one day are listed in the ledger by payment id, not by time: compared as a set.
    assert.deepEqual(
      before.ledger.entries
        .filter((e: Json) => e.type !== 'rent_due')
        .map((e: Json) => `${e.type} ${e.amount}`)
        .sort(),
      ['payment 1200.00', 'payment 650.00', 'refund 200.00'],
    );
    assert.equal(
      before.events.data.filter((e: Json) => e.type === 'payment_refunded').length,
      1,
      'the refund is an event',
    );
    assert.equal(before.document.contentType, 'application/pdf');

    // The backup, as the runbook takes it, and the database lost.
    await stopThisServe();
    const dump = path.join(dataDir, 'rentpay.dump');
    cluster.client('pg_dump', ['-Fc', '-f', dump, 'rentpay']);
    assert.ok(fs.statSync(dump).size > 0);
    cluster.client('dropdb', ['rentpay']);

    // The restore, step by step as the runbook gives it.
    cluster.client('createdb', ['rentpay']);
    cluster.client('pg_restore', ['--no-owner', '-d', 'rentpay', dump]);
    const upToDate = await rentpay(['migrate'], env);
    assert.equal(upToDate.code, 0, upToDate.stderr);
    assert.match(upToDate.stdout, /^Database is up to date/);
    await startServe();

    assert.deepEqual(await readBack(), before);
    const reconciled = await rentpay(['payouts', 'reconcile'], {
      RENTPAY_URL: base,
      RENTPAY_OPERATOR_TOKEN: OPERATOR,
    });
    assert.equal(reconciled.code, 0, `${reconciled.stdout}\n${reconciled.stderr}`);
    assert.match(reconciled.stdout, /^Reconciled: 2 succeeded payments, 0 payouts, 0 runs\.$/m);
    await stopThisServe();
  });
});
