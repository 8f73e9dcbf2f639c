import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  checkDocumentContent,
  type DocumentKind,
  detectContentType,
} from '../../../src/documents/content-type.ts';
import { documentFetchHandler, documentFetchJob } from '../../../src/documents/jobs/document-fetch.ts';
import { FileDocumentStore, InvalidStorageKeyError } from '../../../src/documents/storage.ts';
import { jobHandlers } from '../../../src/jobs.ts';
import { newId } from '../../../src/platform/ids.ts';
import {
  enqueueJob,
  type JobHandler,
  type JobRow,
  STANDARD_RETRY_DELAYS_MS,
} from '../../../src/platform/jobs/queue.ts';
import { Worker } from '../../../src/platform/jobs/worker.ts';
import { createLogger } from '../../../src/platform/log/logger.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

const silent = createLogger('silent');
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('0000000d49484452', 'hex')]);
const JPEG = Buffer.from('ffd8ffe000104a464946', 'hex');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');
const HTML = Buffer.from('<!doctype html><title>Not a PDF</title>');

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function temporaryDirectory(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-documents-test-'));
}

describe('document content detection', () => {
  it('recognises PDF, JPEG, PNG, WebP and GIF by their first bytes', () => {
    assert.equal(detectContentType(PDF), 'application/pdf');
    assert.equal(detectContentType(JPEG), 'image/jpeg');
    assert.equal(detectContentType(PNG), 'image/png');
    assert.equal(detectContentType(WEBP), 'image/webp');
    assert.equal(detectContentType(GIF), 'image/gif');
    assert.equal(detectContentType(HTML), undefined);
    assert.equal(detectContentType(Buffer.alloc(0)), undefined);
    assert.equal(detectContentType(Buffer.from('%PD')), undefined);
    assert.equal(detectContentType(Buffer.from(' %PDF-1.4')), undefined, 'the signature must come first');
  });

  it('the agreement must be a PDF; identity documents and the photo may also be images', () => {
    assert.deepEqual(checkDocumentContent('agreement', PDF), { ok: true, contentType: 'application/pdf' });
    for (const bytes of [PNG, JPEG, HTML]) {
      assert.deepEqual(checkDocumentContent('agreement', bytes), {
        ok: false,
        reason: 'The agreement is not a PDF (its first bytes are not %PDF-).',
      });
    }
    const kyc: DocumentKind[] = ['pii_front', 'pii_back', 'photo'];
    for (const kind of kyc) {
      for (const bytes of [PDF, PNG, JPEG, WEBP, GIF])
        assert.equal(checkDocumentContent(kind, bytes).ok, true);
    }
    assert.deepEqual(checkDocumentContent('photo', HTML), {
      ok: false,
      reason: 'The photo is not a PDF or a JPEG, PNG, WebP or GIF image.',
    });
  });
});

describe('FileDocumentStore', () => {
  let directory: string;
  let store: FileDocumentStore;
  before(() => {
    directory = temporaryDirectory();
    store = new FileDocumentStore(path.join(directory, 'not-yet-there'));
  });
  after(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('puts, gets, replaces and deletes, creating folders and leaving no temporary files', async () => {
    const key = 'int_abc/doc_def-0123abcd.bin';
    assert.equal(await store.get(key), undefined);
    await store.put(key, PDF);
    assert.deepEqual(await store.get(key), PDF);
    await store.put(key, PNG);
    assert.deepEqual(await store.get(key), PNG);
    assert.deepEqual(fs.readdirSync(path.join(store.root, 'int_abc')), ['doc_def-0123abcd.bin']);
    await store.delete(key);
    assert.equal(await store.get(key), undefined);
    await store.delete(key);
  });

  it('refuses keys that could reach outside its folder', async () => {
    for (const key of [
      '../escape.bin',
      'int_abc/../../escape.bin',
      'a/..',
      '/etc/passwd',
      'int_abc//doc.bin',
      '',
      'int_abc\\..\\escape.bin',
      '.hidden',
      'int_abc/doc..bin',
    ]) {
      await assert.rejects(store.put(key, PDF), InvalidStorageKeyError, key);
      await assert.rejects(store.get(key), InvalidStorageKeyError, key);
      await assert.rejects(store.delete(key), InvalidStorageKeyError, key);
    }
    assert.equal(fs.existsSync(path.join(directory, 'escape.bin')), false);
  });
});

interface DocumentHost {
  origin: string;
  hits: Map<string, number>;
  /** Runs while a request is being answered, before the body is sent. */
  onRequest?: (path: string) => Promise<void>;
  close(): Promise<void>;
}

async function startDocumentHost(): Promise<DocumentHost> {
  const host: DocumentHost = {
    origin: '',
    hits: new Map(),
    close: async () => undefined,
  };
  const server = http.createServer(async (req, res) => {
    const route = req.url ?? '/';
    const hits = (host.hits.get(route) ?? 0) + 1;
    host.hits.set(route, hits);
    await host.onRequest?.(route);
    if (route.startsWith('/agreement.pdf'))
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
    else if (route === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    // Claims to be a PDF; only the bytes count.
    else if (route === '/page.html') res.writeHead(200, { 'content-type': 'application/pdf' }).end(HTML);
    else if (route === '/busy') res.writeHead(503).end('try later');
    else if (route === '/flaky') res.writeHead(hits < 3 ? 503 : 200).end(hits < 3 ? 'try later' : PDF);
    else res.writeHead(404).end('not found');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  host.origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  host.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return host;
}

interface DocumentRow {
  state: string;
  generation: number;
  sha256: string | null;
  size_bytes: number | null;
  content_type: string | null;
  storage_key: string | null;
  failure_reason: string | null;
  attempts: number;
  updated_at: Date;
}

interface SeededDocument {
  documentId: string;
  externalUserId: number;
  paymentReference: string | null;
  url: string;
}

describe('document.fetch job', { timeout: 120_000 }, () => {
  let t: TestApp;
  let host: DocumentHost;
  let integratorId: string;
  let storeDirectory: string;
  let store: FileDocumentStore;
  let handler: JobHandler;
  let worker: Worker;
  let seeded = 0;

  before(async () => {
    t = await startTestApp();
    host = await startDocumentHost();
    integratorId = (await t.createIntegrator({ name: 'Documents platform' })).id;
    storeDirectory = temporaryDirectory();
    store = new FileDocumentStore(storeDirectory);
    handler = documentFetchHandler({ store, allowPrivate: true, timeoutMs: 5000 });
    worker = new Worker({
      db: t.db,
      clock: t.clock,
      log: silent,
      handlers: { [documentFetchJob.kind]: handler },
    });
  });
  after(async () => {
    await host.close();
    await t.close();
    fs.rmSync(storeDirectory, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await t.db.query('DELETE FROM jobs');
    host.onRequest = undefined;
  });

  /** Writes what onboarding writes: the user, the tenancy for an agreement, the pending document and its job. */
  async function seedDocument(
    kind: DocumentKind,
    route: string,
    options: { generation?: number; jobGeneration?: number; maxAttempts?: number } = {},
  ): Promise<SeededDocument> {
    seeded++;
    const now = t.clock.now();
    const userId = newId('usr');
    const documentId = newId('doc');
    const externalUserId = 9000 + seeded;
    const paymentReference = kind === 'agreement' ? `REF-${seeded}` : null;
    const generation = options.generation ?? 1;
    const url = `${host.origin}${route}`;
    await t.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO users (id, integrator_id, external_id, email, email_key, first_name, last_name, phone_number,
                            date_of_birth, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $4, 'Ada', 'Tenant', '+447700900000', '1990-01-31', $5, $5)`,
        [userId, integratorId, externalUserId, `tenant${seeded}@example.com`, now],
      );
      let tenancyId: string | null = null;
      if (paymentReference) {
        tenancyId = newId('ten');
        await tx.query(
          `INSERT INTO tenancies (id, integrator_id, user_id, post_code, address_1, city, country, is_primary,
                                  start_rent_date, end_rent_date, rent_due_day, amount_pence, frequency, is_active,
                                  payment_reference, recipient_bank_sort_code, recipient_bank_account_number,
                                  recipient_bank_account_name, agreement_url, created_at, updated_at)
           VALUES ($1, $2, $3, 'SW1A 1AA', '1 High Street', 'London', 'GB', true, '2026-01-01', '2026-12-31', 1,
                   120000, 'monthly', true, $4, '040004', '12345678', 'Landlord Ltd', $5, $6, $6)`,
          [tenancyId, integratorId, userId, paymentReference, url, now],
        );
      }
      await tx.query(
        `INSERT INTO documents (id, integrator_id, user_id, tenancy_id, kind, source_url, generation, created_at,
                                updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
        [documentId, integratorId, userId, tenancyId, kind, url, generation, now],
      );
      const jobGeneration = options.jobGeneration ?? generation;
      await enqueueJob(
        tx,
        t.clock,
        documentFetchJob.kind,
        { document_id: documentId, generation: jobGeneration },
        {
          dedupeKey: `${documentFetchJob.kind}:${documentId}:${jobGeneration}`,
          maxAttempts: options.maxAttempts ?? 5,
        },
      );
    });
    return { documentId, externalUserId, paymentReference, url };
  }

  async function documentRow(documentId: string): Promise<DocumentRow> {
    const [row] = await t.db.query<DocumentRow>(
      `SELECT state, generation, sha256, size_bytes, content_type, storage_key, failure_reason, attempts, updated_at
         FROM documents WHERE id = $1`,
      [documentId],
    );
    assert.ok(row, `document ${documentId} exists`);
    return { ...row, size_bytes: row.size_bytes === null ? null : Number(row.size_bytes) };
  }

  async function failureEvents(documentId: string) {
    return t.db.query<{ integrator_id: string; type: string; data: Record<string, unknown> }>(
      `SELECT integrator_id, type, data FROM events WHERE data->'document'->>'document_id' = $1`,
      [documentId],
    );
  }

  async function jobOf(documentId: string) {
    const [job] = await t.db.query<JobRow & { status: string; run_at: Date; last_error: string | null }>(
      `SELECT id, kind, payload, attempts, max_attempts, status, run_at, last_error FROM jobs
        WHERE payload->>'document_id' = $1`,
      [documentId],
    );
    assert.ok(job, `a job for ${documentId} exists`);
    return job;
  }

  function storedFiles(): string[] {
    const integratorDirectory = path.join(storeDirectory, integratorId);
    return fs.existsSync(integratorDirectory) ? fs.readdirSync(integratorDirectory) : [];
  }

  function expectedFailureEvent(document: SeededDocument, kind: DocumentKind, reason: string) {
    return {
      integrator_id: integratorId,
      type: 'document_failed',
      data: {
        user_id: document.externalUserId,
        payment_reference: document.paymentReference,
        document: {
          document_id: document.documentId,
          kind,
          url: document.url,
          state: 'failed',
          // Failures are asserted right after they happen: the fake clock has not moved since.
          updated_at: t.clock.now().toISOString(),
        },
        failure_reason: reason,
      },
    };
  }

  it('stores a PDF agreement with its SHA-256, size and type', async () => {
    const document = await seedDocument('agreement', '/agreement.pdf');
    assert.equal(await worker.drain(), 1);
    const row = await documentRow(document.documentId);
    const key = `${integratorId}/${document.documentId}-${sha256(PDF)}.bin`;
    assert.deepEqual(
      { ...row, updated_at: undefined },
      {
        state: 'stored',
        generation: 1,
        sha256: sha256(PDF),
        size_bytes: PDF.length,
        content_type: 'application/pdf',
        storage_key: key,
        failure_reason: null,
        attempts: 1,
        updated_at: undefined,
      },
    );
    assert.deepEqual(fs.readFileSync(path.join(storeDirectory, key)), PDF, 'the file exists in the store');
    assert.deepEqual(await store.get(key), PDF);
    assert.deepEqual(await failureEvents(document.documentId), []);
    assert.equal((await jobOf(document.documentId)).status, 'succeeded');
  });

  it('stores a KYC photo that is a PNG', async () => {
    const document = await seedDocument('photo', '/photo.png');
    assert.equal(await worker.drain(), 1);
    const row = await documentRow(document.documentId);
    assert.equal(row.state, 'stored');
    assert.equal(row.content_type, 'image/png');
    assert.equal(row.sha256, sha256(PNG));
    assert.deepEqual(await store.get(row.storage_key!), PNG);
  });

  it('fails an agreement that is not a PDF at once, with one document_failed event, storing nothing', async () => {
    const filesBefore = storedFiles();
    const document = await seedDocument('agreement', '/page.html');
    assert.equal(await worker.drain(), 1);
    const reason = 'The agreement is not a PDF (its first bytes are not %PDF-).';
    const row = await documentRow(document.documentId);
    assert.equal(row.state, 'failed');
    assert.equal(row.failure_reason, reason);
    assert.equal(row.attempts, 1);
    assert.equal(row.sha256, null);
    assert.equal(row.storage_key, null);
    assert.deepEqual(await failureEvents(document.documentId), [
      expectedFailureEvent(document, 'agreement', reason),
    ]);
    assert.deepEqual(storedFiles(), filesBefore);
    const job = await jobOf(document.documentId);
    assert.equal(job.status, 'succeeded', 'a permanent failure is not retried');
    assert.equal(job.attempts, 1);
  });

  it('fails a KYC document answered with 404 at once; its event has no payment reference', async () => {
    const document = await seedDocument('pii_front', '/missing');
    assert.equal(await worker.drain(), 1);
    const reason = 'HTTP 404 from the document host.';
    assert.equal((await documentRow(document.documentId)).state, 'failed');
    assert.deepEqual(await failureEvents(document.documentId), [
      expectedFailureEvent(document, 'pii_front', reason),
    ]);
    assert.equal(host.hits.get('/missing'), 1);
  });

  it('without ALLOW_PRIVATE_DOCUMENT_HOSTS a loopback URL is refused and never requested', async () => {
    const strict = new Worker({
      db: t.db,
      clock: t.clock,
      log: silent,
      handlers: { [documentFetchJob.kind]: documentFetchHandler({ store, allowPrivate: false }) },
    });
    const document = await seedDocument('agreement', '/agreement.pdf?strict');
    assert.equal(await strict.drain(), 1);
    const reason = 'The address 127.0.0.1 is private or loopback; documents must be on a public host.';
    const row = await documentRow(document.documentId);
    assert.equal(row.state, 'failed');
    assert.equal(row.failure_reason, reason);
    assert.equal(host.hits.get('/agreement.pdf?strict'), undefined);
    assert.deepEqual(await failureEvents(document.documentId), [
      expectedFailureEvent(document, 'agreement', reason),
    ]);
  });

  it('retries a 503 with backoff and fails the document, with its event, after the last attempt', async () => {
    const document = await seedDocument('agreement', '/busy', { maxAttempts: 5 });
    for (let attempt = 1; attempt <= 4; attempt++) {
      assert.equal(await worker.drain(), 1, `attempt ${attempt} runs`);
      const row = await documentRow(document.documentId);
      assert.equal(row.state, 'pending');
      assert.equal(row.attempts, attempt);
      assert.equal(row.failure_reason, null);
      const job = await jobOf(document.documentId);
      assert.equal(job.status, 'pending');
      assert.match(job.last_error ?? '', /HTTP 503 from the document host\./);
      const delay = STANDARD_RETRY_DELAYS_MS[attempt - 1]!;
      assert.equal(new Date(job.run_at).getTime(), t.clock.now().getTime() + delay);
      assert.deepEqual(await failureEvents(document.documentId), []);
      t.clock.advance(delay - 1);
      assert.equal(await worker.drain(), 0, 'not before the backoff');
      t.clock.advance(1);
    }
    assert.equal(await worker.drain(), 1, 'the last attempt runs');
    const reason = 'HTTP 503 from the document host.';
    const row = await documentRow(document.documentId);
    assert.equal(row.state, 'failed');
    assert.equal(row.failure_reason, reason);
    assert.equal(row.attempts, 5);
    assert.deepEqual(await failureEvents(document.documentId), [
      expectedFailureEvent(document, 'agreement', reason),
    ]);
    assert.equal(host.hits.get('/busy'), 5);
    const job = await jobOf(document.documentId);
    assert.equal(job.attempts, 5);
    t.clock.advance(86_400_000);
    assert.equal(await worker.drain(), 0, 'nothing is left to run');
  });

  it('a transient failure that clears up is stored on a later attempt', async () => {
    const document = await seedDocument('agreement', '/flaky');
    assert.equal(await worker.drain(), 1);
    t.clock.advance(STANDARD_RETRY_DELAYS_MS[0]!);
    assert.equal(await worker.drain(), 1);
    t.clock.advance(STANDARD_RETRY_DELAYS_MS[1]!);
    assert.equal(await worker.drain(), 1);
    const row = await documentRow(document.documentId);
    assert.equal(row.state, 'stored');
    assert.equal(row.attempts, 3);
    assert.equal(row.sha256, sha256(PDF));
    assert.deepEqual(await failureEvents(document.documentId), []);
  });

  it('a job for an older generation does nothing', async () => {
    const document = await seedDocument('agreement', '/agreement.pdf?stale', {
      generation: 2,
      jobGeneration: 1,
    });
    const before = await documentRow(document.documentId);
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(await documentRow(document.documentId), before);
    assert.equal(host.hits.get('/agreement.pdf?stale'), undefined, 'the old URL was not fetched');
    assert.equal((await jobOf(document.documentId)).status, 'succeeded');
  });

  it('a job for a document that is gone does nothing; one with a malformed payload fails at once', async () => {
    await enqueueJob(t.db, t.clock, documentFetchJob.kind, { document_id: newId('doc'), generation: 1 });
    await enqueueJob(t.db, t.clock, documentFetchJob.kind, { document_id: 42 });
    assert.equal(await worker.drain(), 2);
    const jobs = await t.db.query<{ status: string; attempts: number; last_error: string | null }>(
      'SELECT status, attempts, last_error FROM jobs ORDER BY status DESC',
    );
    assert.deepEqual(
      jobs.map((job) => [job.status, job.attempts]),
      [
        ['succeeded', 1],
        ['failed', 1],
      ],
    );
    assert.match(jobs[1]?.last_error ?? '', /does not match its schema/);
  });

  it('a URL replaced while it was being fetched is not stored over the new generation', async () => {
    const document = await seedDocument('agreement', '/agreement.pdf?replaced');
    host.onRequest = async (route) => {
      if (route !== '/agreement.pdf?replaced') return;
      await t.db.query(
        `UPDATE documents SET generation = 2, source_url = 'https://example.com/new.pdf' WHERE id = $1`,
        [document.documentId],
      );
    };
    assert.equal(await worker.drain(), 1);
    const row = await documentRow(document.documentId);
    assert.equal(row.state, 'pending');
    assert.equal(row.generation, 2);
    assert.equal(row.sha256, null);
    assert.equal(row.attempts, 0);
  });

  it('running a finished job again changes nothing: the event stays one', async () => {
    const failed = await seedDocument('agreement', '/page.html');
    const stored = await seedDocument('photo', '/photo.png');
    assert.equal(await worker.drain(), 2);
    const failedRow = await documentRow(failed.documentId);
    const storedRow = await documentRow(stored.documentId);
    const hitsBefore = new Map(host.hits);
    for (const document of [failed, stored]) {
      const job = await jobOf(document.documentId);
      await handler({ job, db: t.db, clock: t.clock, log: silent });
      await handler({ job: { ...job, attempts: job.max_attempts }, db: t.db, clock: t.clock, log: silent });
    }
    assert.deepEqual(await documentRow(failed.documentId), failedRow);
    assert.deepEqual(await documentRow(stored.documentId), storedRow);
    assert.equal((await failureEvents(failed.documentId)).length, 1);
    assert.deepEqual((await failureEvents(stored.documentId)).length, 0);
    assert.deepEqual(host.hits, hitsBefore, 'nothing was fetched again');
  });

  it('the service registers the handler, with the configured store', () => {
    const handlers = jobHandlers(t.config, t.app.ctx);
    assert.equal(typeof handlers[documentFetchJob.kind], 'function');
  });
});
