import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  type Answer,
  type Api,
  assertError,
  integrationApi,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('0000000d49484452', 'hex')]);

describe('GET /api/third-party/documents/{document_id}/ (getDocument)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  let host: http.Server;
  let origin: string;
  /** The stored agreement's and photo's ids, from the session query. */
  let agreementId: string;
  let photoId: string;

  before(async () => {
    host = http.createServer((req, res) => {
      if (req.url === '/agreement.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      else if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else res.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(host.address() as net.AddressInfo).port}`;
    t = await startTestApp({ config: { allowPrivateDocumentHosts: true } });
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    otherApi = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
    await api.onboardOk(
      userBody({
        user_id: 1,
        email: 'docs@example.com',
        kyc: { photo: `${origin}/photo.png`, pii_front: `${origin}/missing.png`, status: 'pending' },
        tenant: [tenancyBody({ payment_reference: 'DOC-1', agreement: `${origin}/agreement.pdf` })],
      }),
    );
    await runJobs(t);
    const view = await api.view('docs@example.com');
    agreementId = view.tenancy.agreement_document.document_id;
    photoId = view.user.kyc_documents.photo.document_id;
  });
  after(async () => {
    await t?.close();
    await new Promise((resolve) => host?.close(resolve));
  });

  const download = (id: string, who: Api = api): Promise<Answer> =>
    send(t, {
      method: 'GET',
      url: `/api/third-party/documents/${id}/`,
      headers: tokenHeader(who.serverToken),
    });
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const idOf = async (url: string) =>
    (await t.db.query<{ id: string }>('SELECT id FROM documents WHERE source_url = $1', [url]))[0]!.id;

  it('200: the stored bytes with their content type, ETag (their SHA-256) and no caching', async () => {
    const view = await api.view('docs@example.com');
    for (const [id, bytes, type, state] of [
      [agreementId, PDF, 'application/pdf', view.tenancy.agreement_document],
      [photoId, PNG, 'image/png', view.user.kyc_documents.photo],
    ] as const) {
      assert.match(id, /^doc_[A-Za-z0-9]+$/);
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/third-party/documents/${id}/`,
        headers: tokenHeader(api.serverToken),
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.rawPayload, bytes);
      assert.equal(response.headers['content-type'], type);
      assert.equal(response.headers.etag, `"${sha256(bytes)}"`);
      assert.equal(response.headers['cache-control'], 'private, no-store');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.deepEqual(
        [state.state, state.sha256, state.size_bytes],
        ['stored', sha256(bytes), bytes.length],
      );
    }
  });

  it('opening a KYC document is in the audit log, naming the token and the request; an agreement is not', async () => {
    const audited = async () =>
      (
        await send(t, {
          method: 'GET',
          url: '/api/third-party/audit-log/',
          headers: tokenHeader(api.serverToken),
        })
      ).body.data.filter((entry: { action: string }) => entry.action === 'kyc_document.view');
    const before = (await audited()).length;
    assert.equal((await download(agreementId)).status, 200);
    assert.equal((await audited()).length, before, 'an agreement is not audited');
    const photo = await t.app.inject({
      method: 'GET',
      url: `/api/third-party/documents/${photoId}/`,
      headers: tokenHeader(api.serverToken),
    });
    assert.equal(photo.statusCode, 200);
    const [entry, ...rest] = await audited();
    assert.equal(rest.length, before);
    assert.deepEqual(entry.target, { type: 'document', id: photoId });
    assert.equal(entry.after.kind, 'photo');
    assert.equal(entry.actor.type, 'server_token');
    assert.equal(entry.request_id, photo.headers['x-request-id']);
  });

  it('404 for a document that failed or is not fetched yet', async () => {
    const failed = await idOf(`${origin}/missing.png`);
    assert.equal((await api.view('docs@example.com')).user.kyc_documents.pii_front.state, 'failed');
    await api.onboardOk(
      userBody({
        user_id: 2,
        email: 'later@example.com',
        tenant: [tenancyBody({ payment_reference: 'DOC-2', agreement: `${origin}/agreement.pdf?later` })],
      }),
    );
    const pending = await idOf(`${origin}/agreement.pdf?later`);
    for (const id of [failed, pending]) {
      assertError(await download(id), 404, 'not_found', new RegExp(`^No stored document ${id}\\.`));
    }
  });

  it('400 for an id that is not a document id; 404 for an unknown one', async () => {
    assertError(
      await download('not-a-document'),
      400,
      'invalid_request',
      /^Invalid params: document_id: Enter a document id: "doc_" followed by letters and digits\.$/,
    );
    assertError(
      await download('doc_unknown'),
      404,
      'not_found',
      /^No stored document doc_unknown\. Use a document_id from the session query; it is set once the document is stored, and a document is visible only to the integrator that onboarded it\.$/,
    );
  });

  it('another integrator’s document is 404, as an unknown one; no bytes', async () => {
    const answer = await download(agreementId, otherApi);
    assertError(answer, 404, 'not_found', new RegExp(`^No stored document ${agreementId}\\.`));
  });

  it('401 without a token; no bytes', async () => {
    const answer = await send(t, { method: 'GET', url: `/api/third-party/documents/${agreementId}/` });
    assertError(answer, 401, 'unauthorized', /^Authentication credentials were not provided\./);
  });
});
