import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import { DASHBOARD, fromDashboard, itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs, tokenHeader } from '../../support/helpers.ts';
import {
  documentHost,
  lastAudit,
  PDF,
  PNG,
  startTenantPages,
  type TenantPages,
} from '../../support/tenant-pages.ts';

describe('GET /api/dashboard/documents/{document_id}/ (getDocument)', () => {
  let s: TenantPages;
  let host: Awaited<ReturnType<typeof documentHost>>;
  /** Document ids by kind, as the tenant's page lists them. */
  let ids: Record<string, string>;
  let othersAgreement: string;
  before(async () => {
    host = await documentHost();
    s = await startTenantPages({ config: { allowPrivateDocumentHosts: true } });
    const documents = {
      kyc: { photo: `${host.origin}/photo.png`, pii_front: `${host.origin}/missing.png`, status: 'pending' },
      tenant: [tenancyBody({ payment_reference: 'DOC-1', agreement: `${host.origin}/agreement.pdf` })],
    };
    await s.api.onboardOk(userBody({ user_id: 1, email: 'docs@example.com', ...documents }));
    await s.otherApi.onboardOk(userBody({ user_id: 1, email: 'docs@example.com', ...documents }));
    await runJobs(s.d.t);
    const listed = (await s.d.support.get('/tenants/1/')).body.documents as {
      document_id: string;
      kind: string;
    }[];
    ids = Object.fromEntries(listed.map((d) => [d.kind, d.document_id]));
    othersAgreement = (await s.stranger.get('/tenants/1/')).body.documents[0].document_id;
  });
  after(async () => {
    await s?.d.t.close();
    await host?.close();
  });

  const open = (id: string, who = s.d.support) => who.get(`/documents/${id}/`);
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  it('200: the same bytes and headers as the Integration API; each opening audited, naming the person', async () => {
    for (const [kind, bytes, type, action] of [
      ['agreement', PDF, 'application/pdf', 'agreement_document.view'],
      ['photo', PNG, 'image/png', 'kyc_document.view'],
    ] as const) {
      const id = ids[kind]!;
      const integration = await s.d.t.app.inject({
        method: 'GET',
        url: `/api/third-party/documents/${id}/`,
        headers: tokenHeader(s.api.serverToken),
      });
      const dashboard = await s.d.t.app.inject({
        method: 'GET',
        url: `${DASHBOARD}/documents/${id}/`,
        headers: fromDashboard(s.d.t, { cookie: s.d.support.cookie }),
      });
      assert.equal(dashboard.statusCode, 200, dashboard.body);
      assert.deepEqual(dashboard.rawPayload, bytes);
      assert.deepEqual(dashboard.rawPayload, integration.rawPayload);
      for (const header of ['content-type', 'etag', 'cache-control', 'x-content-type-options']) {
        assert.equal(dashboard.headers[header], integration.headers[header], header);
      }
      assert.equal(dashboard.headers['content-type'], type);
      assert.equal(dashboard.headers.etag, `"${sha256(bytes)}"`);
      const entry = await lastAudit(s.d.t.db, s.d.integrator.id, action);
      assert.equal(entry.target_id, id);
      assert.deepEqual([entry.actor.email, entry.actor.role], ['support@platform.example', 'support']);
      assert.equal((entry.summary.after as { kind: string }).kind, kind);
    }
  });

  it('an agreement for every role; a KYC file for admin and support only (403 for finance and developer, not audited)', async () => {
    for (const person of [s.d.admin, s.d.developer, s.d.finance]) {
      assert.equal((await open(ids.agreement!, person)).status, 200);
    }
    assert.equal((await open(ids.photo!, s.d.admin)).status, 200);
    const [before] = await s.d.t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_log WHERE action = 'kyc_document.view'",
    );
    for (const person of [s.d.finance, s.d.developer]) {
      assertError(await open(ids.photo!, person), 403, 'forbidden', /does not allow this \(kyc\.read\)/);
    }
    const [afterwards] = await s.d.t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_log WHERE action = 'kyc_document.view'",
    );
    assert.equal(afterwards?.n, before?.n);
  });

  it('404 for a document not stored, an unknown one and another platform’s; 403 for the operator’s staff', async () => {
    assertError(await open(ids.pii_front!), 404, 'not_found', /No stored document/);
    assertError(await open('doc_unknown'), 404, 'not_found');
    assertError(await open(othersAgreement), 404, 'not_found');
    assertError(await open(ids.agreement!, s.operatorStaff), 403, 'forbidden');
    assert.equal((await open('nope')).status, 400);
  });

  it('the Integration API still audits KYC files only, not agreements its systems fetch', async () => {
    const count = async () =>
      (
        await s.d.t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM audit_log WHERE action = 'agreement_document.view'",
        )
      )[0]?.n;
    const before = await count();
    const fetched = await send(s.d.t, {
      method: 'GET',
      url: `/api/third-party/documents/${ids.agreement}/`,
      headers: tokenHeader(s.api.serverToken),
    });
    assert.equal(fetched.status, 200);
    assert.equal(await count(), before);
  });

  itRefusesWithoutASession(() => s.d, 'GET', '/documents/doc_x/');
});
