import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runJobs, startTestApp, type TestApp, tokenHeader } from '../support/helpers.ts';

/**
 * The integrator's whole first-tenant flow over real HTTP: onboard with an installment plan, let the worker fetch
 * the agreement from a real server, log in, read the session back with the agreement stored.
 */
describe('first tenant, end to end', () => {
  let t: TestApp;
  let baseUrl: string;
  let headers: Record<string, string>;
  let samplePdf: Buffer;

  before(async () => {
    // Local sandbox: the sample agreement is served by this very app on loopback, so private hosts are allowed.
    t = await startTestApp({ config: { allowPrivateDocumentHosts: true } });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { token } = await t.createIntegrator({ rate_limit_per_second: 10_000, rate_limit_burst: 20_000 });
    headers = { ...tokenHeader(token), 'content-type': 'application/json' };
    samplePdf = Buffer.from(
      await (await fetch(`${baseUrl}/sandbox/documents/sample-agreement.pdf`)).arrayBuffer(),
    );
  });
  after(() => t.close());

  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}/api/third-party${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  /** Whether the document store (the database) holds a file under this key. */
  const inStore = async (storageKey: string) =>
    (await t.db.query('SELECT 1 FROM document_files WHERE storage_key = $1', [storageKey])).length === 1;
  const getSession = async (sessionId: string) =>
    (await fetch(`${baseUrl}/api/third-party/session/${sessionId}/`, { headers })).json();

  it('onboard with an installment plan, fetch the agreement, log in, read the session back', async () => {
    const agreement = `${baseUrl}/sandbox/documents/sample-agreement.pdf`;
    const onboarded = await post(
      '/onboarding/',
      userBody({
        user_id: 501,
        email: 'e2e@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'E2E-1',
            agreement,
            installment_payment: {
              total_amount: 2400,
              installments: [
                { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
                { installment_number: 2, due_date: '2026-07-01', amount: 1200 },
              ],
            },
          }),
        ],
        kyc: { photo: agreement, status: 'pending' },
      }),
    );
    assert.equal(onboarded.status, 201);
    assert.deepEqual(await onboarded.json(), {
      message: 'Onboarded 1 user: 1 created, 0 updated.',
      created: 1,
      updated: 0,
      ignored: [],
    });

    const login = await post('/user-login/', { email: 'E2E@example.com' });
    assert.equal(login.status, 200);
    const { session_id } = await login.json();
    const pending = await getSession(session_id);
    assert.equal(pending.tenancy.agreement_document.state, 'pending');

    assert.equal(await runJobs(t), 2, 'the agreement and the KYC photo are fetched');
    const session = await getSession(session_id);
    assert.equal(session.status, 'active');
    const agreementId = session.tenancy.agreement_document.document_id;
    assert.match(agreementId, /^doc_/);
    assert.deepEqual(session.tenancy.agreement_document, {
      document_id: agreementId,
      state: 'stored',
      sha256: createHash('sha256').update(samplePdf).digest('hex'),
      size_bytes: samplePdf.length,
      failure_reason: null,
    });
    assert.equal(session.user.kyc_documents.photo.state, 'stored');
    const download = await fetch(`${baseUrl}/api/third-party/documents/${agreementId}/`, { headers });
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'application/pdf');
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), samplePdf);
    assert.deepEqual(session.tenancy.installment_payment, {
      total_amount: 2400,
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 2, due_date: '2026-07-01', amount: 1200 },
      ],
    });
    assert.equal(session.tenancy.amount, '1200.00');
    assert.deepEqual(session.bank_account, {
      sort_code: '12-34-56',
      account_number: '12345678',
      account_name: 'Landlord Ltd',
      payout_ready: true,
      payout_hold_reason: null,
    });
  });

  it('an agreement that is not a PDF fails with a reason and records a document_failed event', async () => {
    const onboarded = await post(
      '/onboarding/',
      userBody({
        user_id: 502,
        email: 'not-pdf@example.com',
        tenant: [tenancyBody({ payment_reference: 'E2E-2', agreement: `${baseUrl}/healthz` })],
      }),
    );
    assert.equal(onboarded.status, 201);
    await runJobs(t);
    const { session_id } = await (await post('/user-login/', { email: 'not-pdf@example.com' })).json();
    const session = await getSession(session_id);
    assert.equal(session.tenancy.agreement_document.state, 'failed');
    assert.match(session.tenancy.agreement_document.failure_reason, /not a PDF/);
    const events = await t.db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE type = 'document_failed' AND data->>'payment_reference' = 'E2E-2'`,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.user_id, 502);
  });

  it('a changed KYC URL on update is fetched again', async () => {
    const first = `${baseUrl}/sandbox/documents/sample-agreement.pdf`;
    const user = (photo: string) =>
      userBody({
        user_id: 503,
        email: 'kyc@example.com',
        tenant: [tenancyBody({ payment_reference: 'E2E-3', agreement: first })],
        kyc: { photo },
      });
    assert.equal((await post('/onboarding/', user(first))).status, 201);
    await runJobs(t);
    const { session_id } = await (await post('/user-login/', { email: 'kyc@example.com' })).json();
    assert.equal((await getSession(session_id)).user.kyc_documents.photo.state, 'stored');

    const [stored] = await t.db.query<{ storage_key: string }>(
      `SELECT d.storage_key FROM documents d JOIN users u ON u.id = d.user_id
        WHERE u.external_id = 503 AND d.kind = 'photo'`,
    );
    const oldFile = stored!.storage_key;
    assert.ok(await inStore(oldFile));

    const updated = await post('/onboarding/', user(`${baseUrl}/healthz?photo=2`));
    assert.deepEqual(await updated.json(), {
      message: 'Onboarded 1 user: 0 created, 1 updated.',
      created: 0,
      updated: 1,
      ignored: [],
    });
    assert.equal(
      (await getSession(session_id)).user.kyc_documents.photo.state,
      'pending',
      'reset for the new URL',
    );
    await runJobs(t);
    const after = await getSession(session_id);
    assert.equal(after.user.kyc.photo, `${baseUrl}/healthz?photo=2`);
    assert.equal(
      after.user.kyc_documents.photo.state,
      'failed',
      'the new URL was fetched (and is not an image)',
    );
    assert.ok(!(await inStore(oldFile)), 'the replaced KYC file is deleted');
  });

  it('a cleared KYC link deletes its stored file once the purge job runs', async () => {
    const sample = `${baseUrl}/sandbox/documents/sample-agreement.pdf`;
    const user = (pii_front: string | null) =>
      userBody({
        user_id: 504,
        email: 'clear@example.com',
        tenant: [tenancyBody({ payment_reference: 'E2E-4', agreement: sample })],
        kyc: { pii_front },
      });
    assert.equal((await post('/onboarding/', user(sample))).status, 201);
    await runJobs(t);
    const [stored] = await t.db.query<{ storage_key: string }>(
      `SELECT d.storage_key FROM documents d JOIN users u ON u.id = d.user_id
        WHERE u.external_id = 504 AND d.kind = 'pii_front'`,
    );
    const file = stored!.storage_key;
    assert.ok(await inStore(file));
    assert.equal((await post('/onboarding/', user(null))).status, 201);
    assert.ok(await inStore(file), 'kept until the purge job runs after commit');
    await runJobs(t);
    assert.ok(!(await inStore(file)));
    const [purge] = await t.db.query<{ status: string }>(
      `SELECT status FROM jobs WHERE kind = 'document.purge' AND payload->>'storage_key' = $1`,
      [stored!.storage_key],
    );
    assert.equal(purge?.status, 'succeeded');
  });

  it('an expired user token on the Client API answers 401 session_expired with a Bearer challenge', async () => {
    const onboarded = await post(
      '/onboarding/',
      userBody({
        user_id: 505,
        email: 'exp@example.com',
        tenant: [tenancyBody({ payment_reference: 'E2E-5', agreement: `${baseUrl}/healthz` })],
      }),
    );
    assert.equal(onboarded.status, 201);
    const { token } = await (await post('/user-login/', { email: 'exp@example.com' })).json();
    t.clock.advance(15 * 60_000);
    const response = await fetch(`${baseUrl}/api/client/session`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await response.json()).error, 'session_expired');
  });
});

describe('a local sandbox without ALLOW_PRIVATE_DOCUMENT_HOSTS', () => {
  let t: TestApp;
  // Nothing listens here: the sample agreement is read without a request.
  const publicUrl = 'http://127.0.0.1:9';
  before(async () => {
    t = await startTestApp({ config: { publicUrl, allowPrivateDocumentHosts: false } });
  });
  after(() => t.close());

  it('stores its own sample agreement, and still refuses any other loopback URL', async () => {
    const { token } = await t.createIntegrator({ rate_limit_per_second: 10_000, rate_limit_burst: 20_000 });
    const onboarded = await t.app.inject({
      method: 'POST',
      url: '/api/third-party/onboarding/',
      headers: tokenHeader(token),
      payload: userBody({
        user_id: 601,
        email: 'local@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'LOCAL-1',
            agreement: `${publicUrl}/sandbox/documents/sample-agreement.pdf`,
          }),
        ],
        kyc: { photo: `${publicUrl}/sandbox/documents/other.pdf`, status: 'pending' },
      }),
    });
    assert.equal(onboarded.statusCode, 201, onboarded.body);
    assert.equal(await runJobs(t), 2);
    const documents = await t.db.query<{ kind: string; state: string; failure_reason: string | null }>(
      'SELECT kind, state, failure_reason FROM documents ORDER BY kind',
    );
    assert.deepEqual(
      documents.map((d) => [d.kind, d.state]),
      [
        ['agreement', 'stored'],
        ['photo', 'failed'],
      ],
    );
    assert.match(documents[1]?.failure_reason ?? '', /private or loopback/);
  });
});
