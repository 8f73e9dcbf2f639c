import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Api,
  assertAnswer,
  assertError,
  assertWritesNothing,
  EMAIL_TAKEN,
  integrationApi,
  ONBOARDING,
  ONE_USER_CREATED,
  ONE_USER_UPDATED,
  rowsAddedBy,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { DEFAULT_BANK_ACCOUNT, tenancyBody, userBody, userWithTenancies } from '../../support/fixtures.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

describe('POST /api/third-party/onboarding/ (onboardUsers)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    otherApi = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
  });
  after(() => t.close());

  it('201 for one user: created; the session query shows the user and tenancy as sent', async () => {
    const user = userWithTenancies({ user_id: 1, email: 'ann@example.com' }, { payment_reference: 'ANN-1' });
    const added = await rowsAddedBy(t.db, async () =>
      assertAnswer(await api.onboard(user), 201, ONE_USER_CREATED),
    );
    assert.deepEqual([added.users, added.tenancies], [1, 1]);
    const view = await api.view('ann@example.com');
    const { tenant: _tenancies, ...fields } = user;
    assert.deepEqual({ ...view.user, kyc_documents: undefined }, { ...fields, kyc_documents: undefined });
    assert.deepEqual(
      { ...view.tenancy, agreement_document: undefined },
      {
        ...tenancyBody({ payment_reference: 'ANN-1' }),
        agreement_document: undefined,
      },
    );
    assert.deepEqual(view.bank_account, DEFAULT_BANK_ACCOUNT);
  });

  it('201 updated for a known user_id: amount changes, a field that may not change is listed in ignored', async () => {
    const user = userWithTenancies({ user_id: 2, email: 'bob@example.com' }, { payment_reference: 'BOB-1' });
    await api.onboardOk(user);
    const again = userWithTenancies(
      { user_id: 2, email: 'bob@example.com', last_name: 'Builder' },
      { payment_reference: 'BOB-1', amount: '1250.00', city: 'Leeds' },
    );
    assertAnswer(await api.onboard(again), 201, { ...ONE_USER_UPDATED, ignored: ['tenant.0.city'] });
    const view = await api.view('bob@example.com');
    assert.deepEqual(
      [view.user.last_name, view.tenancy.amount, view.tenancy.city],
      ['Builder', '1250.00', 'London'],
    );
  });

  it('201 for an array: each user counted, in one message', async () => {
    const users = [3, 4].map((id) =>
      userWithTenancies({ user_id: id, email: `user-${id}@example.com` }, { payment_reference: `ARR-${id}` }),
    );
    assertAnswer(await api.onboard(users), 201, {
      message: 'Onboarded 2 users: 2 created, 0 updated.',
      created: 2,
      updated: 0,
      ignored: [],
    });
    assert.equal((await api.view('user-4@example.com')).tenancy.payment_reference, 'ARR-4');
  });

  it('400 field errors by dotted path; an array is all-or-nothing; nothing is written', async () => {
    const good = userWithTenancies(
      { user_id: 5, email: 'good@example.com' },
      { payment_reference: 'GOOD-5' },
    );
    const bad = userWithTenancies(
      { user_id: 6, email: 'not-an-email' },
      { payment_reference: 'BAD-6', rent_due_day: 32 },
    );
    await assertWritesNothing(t.db, async () => {
      assertAnswer(await api.onboard(bad), 400, {
        email: ['Enter a valid email address.'],
        'tenant.0.rent_due_day': ['Ensure this value is less than or equal to 31.'],
      });
      assertAnswer(await api.onboard([good, bad]), 400, {
        '1.email': ['Enter a valid email address.'],
        '1.tenant.0.rent_due_day': ['Ensure this value is less than or equal to 31.'],
      });
      assertAnswer(await api.onboard([]), 400, { non_field_errors: ['This list may not be empty.'] });
      assertAnswer(await api.onboard('a user'), 400, {
        non_field_errors: ['Expected a User object or an array of 1 to 500 User objects.'],
      });
      // Another user_id with an email already onboarded.
      assertAnswer(await api.onboard(userBody({ user_id: 7, email: 'ann@example.com' })), 400, {
        email: [EMAIL_TAKEN],
      });
    });
    assertError(await api.login({ email: 'good@example.com' }), 404, 'not_found');
  });

  it('another integrator’s users are its own: the same user_id and email create a user there, A’s stays', async () => {
    const before = await api.view('ann@example.com');
    const theirs = userWithTenancies(
      { user_id: 1, email: 'ann@example.com', first_name: 'Other' },
      { payment_reference: 'ANN-1', amount: '99.00' },
    );
    assertAnswer(await otherApi.onboard(theirs), 201, ONE_USER_CREATED);
    const after = await api.view('ann@example.com');
    assert.deepEqual([after.user, after.tenancy], [before.user, before.tenancy]);
    assert.equal((await otherApi.view('ann@example.com')).user.first_name, 'Other');
  });

  it('401 with an unknown server token; nothing is written', async () => {
    await assertWritesNothing(t.db, async () => {
      const answer = await send(t, {
        method: 'POST',
        url: ONBOARDING,
        headers: { authorization: 'Token rp_sandbox_NotAToken000000000000000000000000000000' },
        payload: userBody({ user_id: 8, email: 'nobody@example.com' }),
      });
      assertError(answer, 401, 'unauthorized', /^Invalid or expired token\./);
    });
  });
});
