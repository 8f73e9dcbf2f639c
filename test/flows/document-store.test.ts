/**
 * Documents in the database: fetched files are stored encrypted (AES-256-GCM, key id beside each), any node on the
 * database serves them through `GET /api/third-party/documents/{document_id}/`, the session query names them, and
 * files an older release kept on disk move into the database on start.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocumentCipher, documentKey } from '../../src/documents/cipher.ts';
import { FileDocumentStore } from '../../src/documents/storage.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { integrationApi, UNLIMITED } from '../support/api-client.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runJobs, startTestApp, type TestApp } from '../support/helpers.ts';

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('0000000d49484452', 'hex')]);
const KEY = randomBytes(32);

function download(t: TestApp, token: string, documentId: string) {
  return t.app.inject({
    method: 'GET',
    url: `/api/third-party/documents/${documentId}/`,
    headers: { authorization: `Token ${token}` },
  });
}

describe('documents in the database', () => {
  let host: http.Server;
  let origin: string;
  let node1: TestApp;
  let node2: TestApp;
  let a: { id: string; token: string };
  let b: { id: string; token: string };
  let agreementId: string;
  let photoId: string;

  before(async () => {
    host = http.createServer((req, res) => {
      if (req.url === '/agreement.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      else if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(host.address() as net.AddressInfo).port}`;
    const config = { allowPrivateDocumentHosts: true, documentEncryptionKey: KEY };
    node1 = await startTestApp({ config });
    // A second node on the same database, with no disk in common: a documents folder of its own.
    node2 = await startTestApp({ config, database: node1.database, db: node1.db, clock: node1.clock });
    a = await node1.createIntegrator(UNLIMITED);
    b = await node1.createIntegrator(UNLIMITED);
  });
  after(async () => {
    await node2?.close();
    await node1?.close();
    await new Promise((resolve) => host.close(resolve));
  });

  it('stores fetched documents encrypted and names them in the session query once stored', async () => {
    const api = integrationApi(node1, a);
    const user = userBody({
      user_id: 501,
      email: 'docs@example.com',
      kyc: { pii_front: null, pii_back: null, photo: `${origin}/photo.png`, status: 'pending' },
      tenant: [tenancyBody({ payment_reference: 'DOC-501', agreement: `${origin}/agreement.pdf` })],
    });
    await api.onboardOk(user);
    const pending = await api.view('docs@example.com');
    assert.equal(pending.tenancy.agreement_document.document_id, null);
    assert.equal(pending.tenancy.agreement_document.state, 'pending');
    assert.equal(await runJobs(node1), 2);
    const stored = await api.view('docs@example.com');
    assert.equal(stored.tenancy.agreement_document.state, 'stored');
    agreementId = stored.tenancy.agreement_document.document_id;
    photoId = stored.user.kyc_documents.photo.document_id;
    assert.match(agreementId, /^doc_/);
    assert.match(photoId, /^doc_/);

    const files = await node1.db.query<{ storage_key: string; key_id: string; bytes: Uint8Array }>(
      'SELECT storage_key, key_id, bytes FROM document_files ORDER BY storage_key',
    );
    assert.equal(files.length, 2);
    for (const file of files) {
      assert.equal(file.key_id, documentKey(KEY).id);
      const bytes = Buffer.from(file.bytes);
      assert.equal(bytes.includes(PDF.subarray(0, 16)), false, 'no plaintext PDF at rest');
      assert.equal(bytes.includes(PNG.subarray(0, 8)), false, 'no plaintext PNG at rest');
    }
    assert.deepEqual(fs.readdirSync(node1.config.documentsDir), [], 'nothing on the node’s disk');
  });

  it('serves the bytes from any node, with their content type, to their integrator only', async () => {
    for (const node of [node1, node2]) {
      const pdf = await download(node, a.token, agreementId);
      assert.equal(pdf.statusCode, 200);
      assert.equal(pdf.headers['content-type'], 'application/pdf');
      assert.deepEqual(pdf.rawPayload, PDF);
      const png = await download(node, a.token, photoId);
      assert.equal(png.headers['content-type'], 'image/png');
      assert.deepEqual(png.rawPayload, PNG);
      assert.match(String(png.headers.etag), /^"[0-9a-f]{64}"$/);
    }
    const others = await download(node2, b.token, agreementId);
    assert.equal(others.statusCode, 404);
    assert.equal(others.json().error, 'not_found');
    assert.equal((await download(node1, a.token, 'doc_unknown')).statusCode, 404);
    for (const id of ['not-an-id', 'doc_%00']) {
      assert.equal((await download(node1, a.token, id)).statusCode, 400, id);
    }
    assert.equal(
      (await node1.app.inject({ method: 'GET', url: `/api/third-party/documents/${agreementId}/` }))
        .statusCode,
      401,
    );
  });

  it('moves files an older release kept on disk into the database, once, and deletes them', async () => {
    const api = integrationApi(node1, a);
    await api.onboardOk(
      userBody({
        user_id: 502,
        email: 'legacy@example.com',
        tenant: [tenancyBody({ payment_reference: 'DOC-502', agreement: `${origin}/agreement.pdf` })],
      }),
    );
    await runJobs(node1);
    const [doc] = await node1.db.query<{ id: string; storage_key: string }>(
      "SELECT d.id, d.storage_key FROM documents d JOIN users u ON u.id = d.user_id WHERE u.email = 'legacy@example.com'",
    );
    // As an older release left it: the file on this node's disk, nothing in the database.
    await node1.db.query('DELETE FROM document_files WHERE storage_key = $1', [doc!.storage_key]);
    const legacyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-legacy-documents-'));
    try {
      const legacy = new FileDocumentStore(legacyDir);
      await legacy.put(doc!.storage_key, PDF);
      assert.equal((await download(node2, a.token, doc!.id)).statusCode, 404, 'not readable before the move');
      const log = createLogger('silent');
      assert.equal(await node2.app.ctx.documents.moveFromDisk(new FileDocumentStore(os.tmpdir()), log), 0);
      assert.equal(await node1.app.ctx.documents.moveFromDisk(legacy, log), 1);
      assert.equal(await legacy.get(doc!.storage_key), undefined, 'the file is gone from disk');
      assert.equal(await node1.app.ctx.documents.moveFromDisk(legacy, log), 0, 'nothing left to move');
      const moved = await download(node2, a.token, doc!.id);
      assert.equal(moved.statusCode, 200);
      assert.deepEqual(moved.rawPayload, PDF);
    } finally {
      fs.rmSync(legacyDir, { recursive: true, force: true });
    }
  });
});

describe('document cipher', () => {
  const current = documentKey(randomBytes(32));
  const old = documentKey(randomBytes(32));

  it('reads files under the current key and previous ones, and writes under the current one', () => {
    const before = new DocumentCipher(old).encrypt('int_a/doc_b-1.bin', PDF);
    const rotated = new DocumentCipher(current, [old]);
    assert.deepEqual(rotated.decrypt('int_a/doc_b-1.bin', before.keyId, before.bytes), PDF);
    const after = rotated.encrypt('int_a/doc_b-1.bin', PDF);
    assert.equal(after.keyId, current.id);
    assert.throws(
      () => new DocumentCipher(current).decrypt('int_a/doc_b-1.bin', old.id, before.bytes),
      /DOCUMENT_ENCRYPTION_PREVIOUS_KEYS/,
    );
  });

  it('refuses bytes changed at rest or moved to another name', () => {
    const cipher = new DocumentCipher(current);
    const sealed = cipher.encrypt('int_a/doc_b-1.bin', PDF);
    const tampered = Buffer.from(sealed.bytes);
    tampered[20] = (tampered[20] ?? 0) ^ 1;
    assert.throws(() => cipher.decrypt('int_a/doc_b-1.bin', sealed.keyId, tampered));
    assert.throws(() => cipher.decrypt('int_a/doc_c-1.bin', sealed.keyId, sealed.bytes));
  });
});
