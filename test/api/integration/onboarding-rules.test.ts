import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { documentFetchJob } from '../../../src/documents/jobs/document-fetch.ts';
import {
  type Api,
  assertAnswer,
  assertFields,
  assertWritesNothing,
  EMAIL_TAKEN,
  internalUserId,
  ONE_USER_UPDATED,
  PENDING_DOCUMENT,
  REFERENCE_TAKEN,
  rowsAddedBy,
  startIntegration,
} from '../../support/api-client.ts';
import {
  DEFAULT_BANK_ACCOUNT,
  installment,
  tenancyBody,
  twoInstallmentPlan,
  userBody,
  userWithTenancies,
} from '../../support/fixtures.ts';
import type { TestApp } from '../../support/helpers.ts';

interface DocumentRow {
  id: string;
  kind: string;
  tenancy_id: string | null;
  source_url: string;
  generation: number;
  state: string;
}

async function documentsOf(t: TestApp, api: Api, userId: number): Promise<Record<string, DocumentRow>> {
  const rows = await t.db.query<DocumentRow>(
    `SELECT id, kind, tenancy_id, source_url, generation, state FROM documents WHERE user_id = $1 AND kind <> 'agreement'`,
    [await internalUserId(t.db, api.integratorId, userId)],
  );
  return Object.fromEntries(rows.map((row) => [row.kind, row]));
}

async function fetchJobs(t: TestApp, documentId: string) {
  return t.db.query<{ generation: number; status: string; dedupe_key: string }>(
    `SELECT (payload->>'generation')::int AS generation, status, dedupe_key FROM jobs
      WHERE kind = $1 AND payload->>'document_id' = $2 ORDER BY (payload->>'generation')::int`,
    [documentFetchJob.kind, documentId],
  );
}

describe('onboarding rules: a user is matched on user_id', () => {
  let t: TestApp;
  let api: Api;
  before(async () => ({ t, api } = await startIntegration()));
  after(() => t.close());

  /** User `id` with an email and a payment_reference of its own. */
  const numberedUser = (id: number) =>
    userWithTenancies({ user_id: id, email: `u${id}@example.com` }, { payment_reference: `B-${id}` });

  it('201 answers exactly {message, created, updated, ignored}', async () => {
    const response = await api.onboard(userBody({ user_id: 1, email: 'first@example.com' }));
    assert.equal(response.status, 201);
    assert.deepEqual(Object.keys(response.body).sort(), ['created', 'ignored', 'message', 'updated']);
    assert.equal(typeof response.body.message, 'string');
    assert.ok(response.body.message.length > 0);
    assert.equal(response.body.created, 1);
    assert.equal(response.body.updated, 0);
  });

  it('the same user_id updates the user: created 0, updated 1, every user field changed', async () => {
    const changedFields = {
      user_id: 1,
      email: 'Renamed@Example.com',
      first_name: 'Augusta',
      last_name: 'King',
      phone_number: '+447700900999',
      date_of_birth: '1985-06-15',
    };
    const added = await rowsAddedBy(t.db, async () =>
      assertAnswer(await api.onboard(userBody(changedFields)), 201, ONE_USER_UPDATED),
    );
    assert.equal(added.users, 0, 'no new user row');
    assert.equal(added.tenancies, 0, 'the same tenancy, matched on its identity');
    // Logging in compares emails case-insensitively; the view shows the email stored as sent.
    assertFields((await api.view('renamed@example.com')).user, changedFields);
  });

  it('after an email change the old email no longer logs in', async () => {
    const response = await api.login({ email: 'first@example.com' });
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'not_found');
  });

  it('another user_id with the same email (any case) fails on email and writes nothing', async () => {
    await assertWritesNothing(t.db, async () => {
      for (const email of ['renamed@example.com', 'RENAMED@EXAMPLE.COM']) {
        const response = await api.onboard(
          userWithTenancies({ user_id: 2, email }, { payment_reference: 'OTHER-2' }),
        );
        assertAnswer(response, 400, { email: [EMAIL_TAKEN] });
      }
    });
  });

  it('a bulk of existing and new users counts each: created 3, updated 2', async () => {
    await api.onboardOk(numberedUser(20));
    const users = [20, 1, 21, 22, 23].map((id) =>
      id === 1 ? userBody({ user_id: 1, email: 'renamed@example.com' }) : numberedUser(id),
    );
    assertAnswer(await api.onboard(users), 201, {
      message: 'Onboarded 5 users: 3 created, 2 updated.',
      created: 3,
      updated: 2,
      ignored: [],
    });
  });

  it('an unchanged re-send counts as updated and changes no rows', async () => {
    await assertWritesNothing(t.db, async () =>
      assert.deepEqual(await api.onboardOk(numberedUser(20)), ONE_USER_UPDATED),
    );
  });
});

describe('onboarding rules: a tenancy is matched on (user, start_rent_date, payment_reference, address_1)', () => {
  let t: TestApp;
  let api: Api;
  const original = tenancyBody({
    payment_reference: 'T-1',
    is_primary: true,
    installment_payment: twoInstallmentPlan(),
  });
  const second = tenancyBody({
    payment_reference: 'T-2',
    address_1: '1 Other Road',
    is_primary: false,
    amount: '800.00',
    start_rent_date: '2026-02-01',
  });
  const user = (tenant: Record<string, unknown>[]) =>
    userBody({ user_id: 1, email: 'tenant@example.com', tenant });

  before(async () => {
    ({ t, api } = await startIntegration());
    await api.onboardOk(user([original, second]));
  });
  after(() => t.close());

  it('an existing tenancy updates only end_rent_date, amount and frequency; every other field sent is ignored', async () => {
    const mayChange = { end_rent_date: '2027-06-30', amount: '1350.50', frequency: 'every_3_month' };
    const changed = {
      ...original,
      ...mayChange,
      // ignored for an existing tenancy:
      post_code: 'E1 6AN',
      city: 'Manchester',
      country: 'France',
      is_primary: false,
      rent_due_day: 15,
      is_active: false,
      recipient_bank_sort_code: '99-99-99',
      recipient_bank_account_number: '99999999',
      recipient_bank_account_name: 'Someone Else',
      agreement: 'https://docs.example/other-agreement.pdf',
      installment_payment: { total_amount: 100, installments: [installment(1, '2026-01-01', 100)] },
    };
    await assertWritesNothing(
      t.db,
      async () =>
        assertAnswer(await api.onboard(user([changed])), 201, {
          ...ONE_USER_UPDATED,
          // Each field that was not taken is named.
          ignored: [
            'tenant.0.post_code',
            'tenant.0.city',
            'tenant.0.country',
            'tenant.0.is_primary',
            'tenant.0.rent_due_day',
            'tenant.0.is_active',
            'tenant.0.recipient_bank_sort_code',
            'tenant.0.recipient_bank_account_number',
            'tenant.0.recipient_bank_account_name',
            'tenant.0.agreement',
            'tenant.0.installment_payment.total_amount',
            'tenant.0.installment_payment.installments.0.amount',
          ],
        }),
      'no new tenancy, no new document, no new fetch job',
    );

    const view = await api.view('tenant@example.com', 'T-1');
    assert.deepEqual(view.tenancy, { ...original, ...mayChange, agreement_document: PENDING_DOCUMENT });
    assert.deepEqual(view.bank_account, DEFAULT_BANK_ACCOUNT);
  });

  it('tenancies not named in the request are left as they are', async () => {
    assertFields((await api.view('tenant@example.com', 'T-2')).tenancy, {
      address_1: '1 Other Road',
      amount: '800.00',
      end_rent_date: '2026-12-31',
      is_active: true,
    });
  });

  it('a changed address_1 with a new payment_reference is a new tenancy; the old one stays', async () => {
    const moved = {
      ...original,
      address_1: '11 Downing Street',
      payment_reference: 'T-3',
      amount: '2000.00',
    };
    const added = await rowsAddedBy(t.db, async () =>
      assertAnswer(await api.onboard(user([moved])), 201, ONE_USER_UPDATED),
    );
    assert.equal(added.tenancies, 1);
    assert.equal(added.documents, 1, 'the new tenancy’s agreement');
    assert.equal(added.jobs, 1, 'its fetch job');
    assertFields((await api.view('tenant@example.com', 'T-3')).tenancy, {
      address_1: '11 Downing Street',
      amount: '2000.00',
    });
    assertFields((await api.view('tenant@example.com', 'T-1')).tenancy, {
      address_1: '10 Downing Street',
      amount: '1350.50',
    });
  });

  it('a changed address_1 with the same payment_reference is a new tenancy reusing a reference: 400 on tenant.N.payment_reference', async () => {
    const tenancies = [
      tenancyBody({ payment_reference: 'T-4', address_1: '4 New Street' }),
      { ...original, address_1: '12 Downing Street' },
    ];
    await assertWritesNothing(
      t.db,
      async () =>
        assertAnswer(await api.onboard(user(tenancies)), 400, {
          'tenant.1.payment_reference': [REFERENCE_TAKEN],
        }),
      'T-4 was not written either',
    );
  });

  it('a changed start_rent_date with the same payment_reference is likewise refused', async () => {
    const response = await api.onboard(user([{ ...original, start_rent_date: '2026-01-02' }]));
    assertAnswer(response, 400, { 'tenant.0.payment_reference': [REFERENCE_TAKEN] });
  });

  it('a new user reusing another user’s payment_reference: 400, in a single body and in an array body', async () => {
    await assertWritesNothing(t.db, async () => {
      const single = await api.onboard(
        userWithTenancies({ user_id: 2, email: 'second@example.com' }, { payment_reference: 'T-2' }),
      );
      assertAnswer(single, 400, { 'tenant.0.payment_reference': [REFERENCE_TAKEN] });
      const array = await api.onboard([
        userWithTenancies({ user_id: 3, email: 'third@example.com' }, { payment_reference: 'T-30' }),
        userWithTenancies({ user_id: 2, email: 'second@example.com' }, original),
      ]);
      assertAnswer(array, 400, { '1.tenant.0.payment_reference': [REFERENCE_TAKEN] });
    });
  });

  it('another existing user sending the exact identity fields of someone else’s tenancy does not take it over', async () => {
    await api.onboardOk(
      userWithTenancies({ user_id: 5, email: 'five@example.com' }, { payment_reference: 'T-5' }),
    );
    const response = await api.onboard(
      userWithTenancies({ user_id: 5, email: 'five@example.com' }, { ...second, amount: '1.00' }),
    );
    assertAnswer(response, 400, { 'tenant.0.payment_reference': [REFERENCE_TAKEN] });
    assert.equal((await api.view('tenant@example.com', 'T-2')).tenancy.amount, '800.00');
  });
});

describe('onboarding rules: documents and KYC links', () => {
  let t: TestApp;
  let api: Api;
  const kyc = {
    pii_front: 'https://docs.example/front-1.jpg',
    pii_back: 'https://docs.example/back-1.jpg',
    photo: 'https://docs.example/photo-1.jpg',
    status: 'pending',
  };
  const user = (kycBody: Record<string, unknown>) =>
    userWithTenancies({ user_id: 1, email: 'kyc@example.com', kyc: kycBody }, { payment_reference: 'K-1' });
  const kycDocuments = () => documentsOf(t, api, 1);
  const fetchedGenerations = async (documentId: string) =>
    (await fetchJobs(t, documentId)).map((job) => job.generation);

  /** Runs `action` and asserts it wrote no rows and left every KYC document as it was. */
  async function assertKycDocumentsUnchangedBy(action: () => Promise<unknown>) {
    const documentsBefore = await kycDocuments();
    await assertWritesNothing(t.db, action);
    assert.deepEqual(await kycDocuments(), documentsBefore);
  }

  before(async () => ({ t, api } = await startIntegration()));
  after(() => t.close());

  it('a new tenancy creates its agreement document (pending) and a document.fetch job, together', async () => {
    const added = await rowsAddedBy(t.db, () => api.onboardOk(user(kyc)));
    assert.equal(added.documents, 4, 'agreement + three KYC links');
    assert.equal(added.jobs, 4, 'one fetch job per document');

    const [agreement] = await t.db.query<DocumentRow>(
      `SELECT d.id, d.kind, d.tenancy_id, d.source_url, d.generation, d.state FROM documents d
         JOIN tenancies t ON t.id = d.tenancy_id
        WHERE t.integrator_id = $1 AND t.payment_reference = 'K-1' AND d.kind = 'agreement'`,
      [api.integratorId],
    );
    assert.ok(agreement);
    assertFields(agreement, {
      state: 'pending',
      generation: 1,
      source_url: 'https://docs.example/agreement.pdf',
    });
    const jobs = await fetchJobs(t, agreement.id);
    assert.deepEqual(
      jobs.map((j) => [j.generation, j.status]),
      [[1, 'pending']],
    );

    const view = await api.view('kyc@example.com');
    assert.deepEqual(view.tenancy.agreement_document, PENDING_DOCUMENT);
    assert.deepEqual(view.user.kyc, kyc);
    const docs = await kycDocuments();
    for (const kind of ['pii_front', 'pii_back', 'photo']) {
      assert.equal(docs[kind]?.generation, 1, kind);
      assert.equal(docs[kind]?.source_url, kyc[kind as keyof typeof kyc]);
      assert.deepEqual(await fetchedGenerations(docs[kind]!.id), [1]);
    }
  });

  it('KYC absent (kyc {}) leaves every member unchanged and fetches nothing again', async () => {
    await assertKycDocumentsUnchangedBy(() => api.onboardOk(user({})));
    assert.deepEqual((await api.view('kyc@example.com')).user.kyc, kyc);
  });

  it('the same URL sent again is no change: no new generation, no new job', async () => {
    await assertKycDocumentsUnchangedBy(() => api.onboardOk(user(kyc)));
  });

  it('null clears a member (and its document); the others stay', async () => {
    await api.onboardOk(user({ pii_back: null, status: null }));
    const view = await api.view('kyc@example.com');
    assert.deepEqual(view.user.kyc, {
      pii_front: kyc.pii_front,
      pii_back: null,
      photo: kyc.photo,
      status: null,
    });
    assert.deepEqual(Object.keys(await kycDocuments()).sort(), ['photo', 'pii_front']);
    assert.deepEqual(Object.keys(view.user.kyc_documents).sort(), ['photo', 'pii_front']);
  });

  it('a new URL is a new fetch: the document’s generation bumps and a job for that generation exists', async () => {
    const docBefore = (await kycDocuments()).pii_front!;
    await api.onboardOk(user({ pii_front: 'https://docs.example/front-2.jpg' }));
    const doc = (await kycDocuments()).pii_front!;
    assert.equal(doc.id, docBefore.id, 'the same document row');
    assert.equal(doc.generation, docBefore.generation + 1);
    assert.equal(doc.state, 'pending');
    assert.equal(doc.source_url, 'https://docs.example/front-2.jpg');
    const jobs = await fetchJobs(t, doc.id);
    assert.deepEqual(
      jobs.map((j) => j.generation),
      [1, 2],
    );
    assert.equal(jobs[1]?.status, 'pending');
    assert.equal(jobs[1]?.dedupe_key, `${documentFetchJob.kind}:${doc.id}:2`);
    const view = await api.view('kyc@example.com');
    assert.equal(view.user.kyc.pii_front, 'https://docs.example/front-2.jpg');
    assert.equal(view.user.kyc_documents.pii_front.state, 'pending');
    assert.equal(view.user.kyc.photo, kyc.photo, 'photo unchanged');
  });

  it('a cleared member set again gets a fresh document and a fetch job', async () => {
    const added = await rowsAddedBy(t.db, () =>
      api.onboardOk(user({ pii_back: 'https://docs.example/back-2.jpg', status: 'verified' })),
    );
    assert.equal(added.documents, 1);
    assert.equal(added.jobs, 1);
    const doc = (await kycDocuments()).pii_back!;
    assert.equal(doc.generation, 1);
    assert.equal(doc.source_url, 'https://docs.example/back-2.jpg');
    assert.deepEqual(await fetchedGenerations(doc.id), [1]);
    const view = await api.view('kyc@example.com');
    assert.equal(view.user.kyc.pii_back, 'https://docs.example/back-2.jpg');
    assert.equal(view.user.kyc.status, 'verified');
  });

  it('an existing tenancy’s changed agreement URL is ignored: no new fetch', async () => {
    await assertWritesNothing(t.db, async () => {
      const response = await api.onboard(
        userWithTenancies(
          { user_id: 1, email: 'kyc@example.com', kyc: {} },
          { payment_reference: 'K-1', agreement: 'https://docs.example/v2.pdf' },
        ),
      );
      assert.equal(response.status, 201);
    });
    assert.equal((await api.view('kyc@example.com')).tenancy.agreement, 'https://docs.example/agreement.pdf');
  });

  it('a new user’s KYC null members create no documents', async () => {
    const added = await rowsAddedBy(t.db, () =>
      api.onboardOk(
        userWithTenancies(
          { user_id: 2, email: 'nulls@example.com', kyc: { pii_front: null, pii_back: null, photo: null } },
          { payment_reference: 'K-2' },
        ),
      ),
    );
    assert.equal(added.documents, 1, 'only the agreement');
    assert.equal(added.jobs, 1);
  });
});
