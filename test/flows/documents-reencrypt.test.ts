/**
 * `rentpay documents reencrypt` as an operator runs it after rotating DOCUMENT_ENCRYPTION_KEY: a real process on the
 * test's database (a DATA_DIR folder on PGlite, which one process opens at a time; a schema of its own on
 * PostgreSQL). Documents stored under key A move to key B in batches; a run stopped by SIGTERM halfway leaves the
 * rest for the next run; a service with key B alone then reads every document; a file under a key the process lacks
 * makes it exit 2 naming that key, after moving everything else.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocumentCipher, documentKey } from '../../src/documents/cipher.ts';
import { DatabaseDocumentStore } from '../../src/documents/storage.ts';
import { SAMPLE_AGREEMENT_PATH } from '../../src/sandbox/sample-documents.ts';
import { integrationApi, UNLIMITED } from '../support/api-client.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import {
  databaseForCli,
  runJobs,
  runRentpay,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '../support/helpers.ts';

const A = randomBytes(32);
const B = randomBytes(32);
const C = randomBytes(32);
const id = (key: Buffer) => documentKey(key).id;
const b64 = (key: Buffer) => key.toString('base64');
/** Files stored straight through the store, beside the fetched documents: enough that a run has many batches. */
const BULK = 300;
const FINAL_LINE = /^Re-encrypted (\d+) document file\(s\); (\d+) left under other keys\.$/m;

describe('rentpay documents reencrypt', { timeout: 900_000 }, () => {
  let dataDir: string;
  let database: TestDatabase;
  let integrator: { id: string; token: string };
  /** Document id -> the bytes it must read back as. */
  const documents = new Map<string, string>();
  /** Storage key -> the bytes of a file stored through the store. */
  const bulk = new Map<string, Buffer>();
  let samplePdf: Buffer;

  /** A service on the database with these keys, closed (and the database with it) before any CLI run. */
  async function withApp<T>(
    current: Buffer,
    previous: Buffer[],
    fn: (t: TestApp, api: ReturnType<typeof integrationApi>) => Promise<T>,
  ): Promise<T> {
    const db = await database.open();
    const t = await startTestApp({
      database,
      db,
      config: { documentEncryptionKey: current, documentEncryptionPreviousKeys: previous },
    });
    try {
      integrator ??= await t.createIntegrator(UNLIMITED);
      return await fn(t, integrationApi(t, integrator));
    } finally {
      await t.close();
      await db.close();
    }
  }

  /** Onboards one tenant whose agreement is the sandbox's sample (stored without a network fetch) and stores it. */
  async function storeAgreement(t: TestApp, api: ReturnType<typeof integrationApi>, n: number) {
    await api.onboardOk(
      userBody({
        user_id: 7000 + n,
        email: `reencrypt-${n}@example.com`,
        tenant: [
          tenancyBody({
            payment_reference: `RE-${n}`,
            agreement: `${t.config.publicUrl}${SAMPLE_AGREEMENT_PATH}`,
          }),
        ],
      }),
    );
    await runJobs(t);
    const view = await api.view(`reencrypt-${n}@example.com`);
    assert.equal(view.tenancy.agreement_document.state, 'stored');
    return view.tenancy.agreement_document.document_id as string;
  }

  function putBulk(t: TestApp, key: Buffer, count: number, prefix: string) {
    const store = new DatabaseDocumentStore(t.db, t.clock, new DocumentCipher(documentKey(key)));
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const bytes = randomBytes(64 + i);
        const storageKey = `int_bulk/doc_${prefix}${i}-${createHash('sha256').update(bytes).digest('hex')}.bin`;
        await store.put(storageKey, bytes);
        bulk.set(storageKey, bytes);
      }),
    );
  }

  async function keyIdCounts(t: TestApp): Promise<Record<string, number>> {
    const rows = await t.db.query<{ key_id: string; files: number }>(
      'SELECT key_id, count(*)::int AS files FROM document_files GROUP BY key_id',
    );
    return Object.fromEntries(rows.map((row) => [row.key_id, row.files]));
  }

  function cliEnv(current: Buffer, previous: Buffer[]): Record<string, string> {
    return {
      SERVICE_ENV: 'sandbox',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
      DOCUMENT_ENCRYPTION_KEY: b64(current),
      DOCUMENT_ENCRYPTION_PREVIOUS_KEYS: previous.map(b64).join(','),
    };
  }

  /** `rentpay documents reencrypt` run to its end, with this process's environment and `env`. */
  const reencrypt = (
    args: string[],
    env: Record<string, string>,
    onStdout?: (stdout: string, child: ChildProcess) => void,
  ) =>
    runRentpay(
      ['documents', 'reencrypt', ...args],
      { ...(process.env as Record<string, string>), ...env },
      onStdout,
    );

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-reencrypt-'));
    database = await databaseForCli(dataDir);
  });
  after(async () => {
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('moves every file to the current key in batches; stopped halfway, the next run finishes the rest', async () => {
    await withApp(A, [], async (t, api) => {
      samplePdf = (await t.app.inject({ method: 'GET', url: SAMPLE_AGREEMENT_PATH })).rawPayload;
      for (const n of [1, 2, 3]) documents.set(await storeAgreement(t, api, n), 'sample');
      await putBulk(t, A, BULK, 'a');
      assert.deepEqual(await keyIdCounts(t), { [id(A)]: documents.size + BULK });
    });
    const total = documents.size + BULK;

    // Stopped by SIGTERM once the first batch (of one file) is in: it finishes the batch in hand and stops.
    // (Once: a second signal would exit at once.)
    let signalled = false;
    const stopped = await reencrypt(['--batch-size', '1'], cliEnv(B, [A]), (stdout, child) => {
      if (!signalled && / of \d+ re-encrypted/.test(stdout)) signalled = child.kill('SIGTERM');
    });
    const output = `${stopped.stdout}\n${stopped.stderr}`;
    assert.equal(stopped.code, 1, output);
    assert.match(stopped.stdout, new RegExp(`^Re-encrypting to the current key \\(${id(B)}\\)`, 'm'));
    assert.match(stopped.stdout, new RegExp(`^  key ${id(A)}: ${total}$`, 'm'));
    assert.match(stopped.stderr, /SIGTERM received, stopping after the batch in hand/);
    assert.match(stopped.stderr, /stopped by SIGTERM: run rentpay documents reencrypt again to finish/);
    const [, moved, left] = (FINAL_LINE.exec(stopped.stdout) ?? assert.fail(output)).map(Number);
    assert.ok(moved! >= 1 && moved! < total, `stopped halfway: ${moved} of ${total}`);
    assert.equal(moved! + left!, total);

    // The next run finds exactly what the first left under key A, and moves it.
    const rest = await reencrypt([], cliEnv(B, [A]));
    assert.equal(rest.code, 0, `${rest.stdout}\n${rest.stderr}`);
    assert.match(rest.stdout, new RegExp(`^  key ${id(A)}: ${left}$`, 'm'));
    assert.match(rest.stdout, new RegExp(`^  ${left} of ${left} re-encrypted$`, 'm'));
    assert.match(
      rest.stdout,
      new RegExp(`^Re-encrypted ${left} document file\\(s\\); 0 left under other keys\\.$`, 'm'),
    );
    assert.equal(rest.stderr, '');

    // A service with key B alone reads every document and file: nothing needs key A any more.
    await withApp(B, [], async (t) => {
      assert.deepEqual(await keyIdCounts(t), { [id(B)]: total });
      for (const documentId of documents.keys()) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/third-party/documents/${documentId}/`,
          headers: { authorization: `Token ${integrator.token}` },
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['content-type'], 'application/pdf');
        assert.deepEqual(response.rawPayload, samplePdf);
      }
      const store = t.app.ctx.documents.store;
      for (const [storageKey, bytes] of bulk)
        assert.deepEqual(await store.get(storageKey), bytes, storageKey);
    });

    const again = await reencrypt([], cliEnv(B, [A]));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(
      again.stdout,
      `Every document file is under the current key (${id(B)}); nothing to re-encrypt.\n`,
    );
  });

  it('exits 2 naming a key it does not have, after moving everything else; given that key, it finishes', async () => {
    let underC = '';
    await withApp(C, [], async (t, api) => {
      underC = await storeAgreement(t, api, 4);
      await putBulk(t, A, 5, 'late');
    });

    const missing = await reencrypt([], cliEnv(B, [A]));
    assert.equal(missing.code, 2, `${missing.stdout}\n${missing.stderr}`);
    assert.match(missing.stdout, new RegExp(`^  key ${id(A)}: 5$`, 'm'));
    assert.match(
      missing.stdout,
      new RegExp(`^  key ${id(C)}: 1 \\(not configured: left as they are\\)$`, 'm'),
    );
    assert.match(missing.stdout, /^Re-encrypted 5 document file\(s\); 1 left under other keys\.$/m);
    assert.equal(
      missing.stderr,
      `rentpay: 1 document file(s) are under key ${id(C)}, which this process does not have: add that key to ` +
        'DOCUMENT_ENCRYPTION_PREVIOUS_KEYS and run rentpay documents reencrypt again.\n',
    );

    const unset = await reencrypt([], { ...cliEnv(B, [A]), DOCUMENT_ENCRYPTION_KEY: '' });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /^rentpay: Invalid configuration: DOCUMENT_ENCRYPTION_KEY must be set/);

    // Given key C too, it finds only the file under C left (the ones under A moved in the run before).
    const finished = await reencrypt([], cliEnv(B, [A, C]));
    assert.equal(finished.code, 0, `${finished.stdout}\n${finished.stderr}`);
    assert.doesNotMatch(finished.stdout, new RegExp(`key ${id(A)}`));
    assert.match(finished.stdout, new RegExp(`^  key ${id(C)}: 1$`, 'm'));
    assert.match(finished.stdout, /^Re-encrypted 1 document file\(s\); 0 left under other keys\.$/m);
    await withApp(B, [], async (t) => {
      assert.deepEqual(await keyIdCounts(t), { [id(B)]: documents.size + BULK + 6 });
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/third-party/documents/${underC}/`,
        headers: { authorization: `Token ${integrator.token}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.rawPayload, samplePdf);
    });
  });
});
