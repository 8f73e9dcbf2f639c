import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256Hex } from '../../../src/platform/ids.ts';
import {
  type Answer,
  type Api,
  assertAnswer,
  assertError,
  assertWritesNothing,
  CLIENT_SESSION,
  countRows,
  integrationApi,
  ONBOARDING,
  PENDING_DOCUMENT,
  rowsAddedBy,
  send,
  sessionPath,
  startIntegration,
  UNLIMITED,
  USER_LOGIN,
} from '../../support/api-client.ts';
import {
  DEFAULT_BANK_ACCOUNT,
  tenancyBody,
  twoInstallmentPlan,
  userBody,
  userWithTenancies,
} from '../../support/fixtures.ts';
import { startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

const MINUTE = 60_000;
const TOKEN = /^rp_ust_[A-Za-z0-9]{43}$/;

describe('user-login', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    ({ t, api } = await startIntegration());
    await api.onboardOk([
      userBody({ user_id: 1, email: 'Tenant@Example.com' }),
      userWithTenancies(
        { user_id: 2, email: 'inactive@example.com' },
        { payment_reference: 'OLD-2', is_active: false },
      ),
    ]);
  });
  after(() => t.close());

  it('200 {token, session_id, expires_at, session_expires_at}: token 15 min, session 30 min from now', async () => {
    const now = t.clock.now().getTime();
    const response = await api.login({ email: 'tenant@example.com' });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(Object.keys(response.body).sort(), [
      'expires_at',
      'session_expires_at',
      'session_id',
      'token',
    ]);
    assert.match(response.body.token, TOKEN);
    assert.match(response.body.session_id, /^ses_[A-Za-z0-9]+$/);
    assert.equal(response.body.expires_at, new Date(now + 15 * MINUTE).toISOString());
    assert.equal(response.body.session_expires_at, new Date(now + 30 * MINUTE).toISOString());
  });

  it('each call makes a new session with a new token, and both work', async () => {
    const before = await countRows(t.db);
    const first = await api.loginOk('tenant@example.com');
    const second = await api.loginOk('tenant@example.com');
    assert.notEqual(first.session_id, second.session_id);
    assert.notEqual(first.token, second.token);
    assert.equal((await countRows(t.db)).sessions - before.sessions, 2);
    assert.equal((await api.clientSession(first.token)).status, 200);
    assert.equal((await api.clientSession(second.token)).status, 200);
    assert.equal((await api.session(first.session_id)).status, 200);
    assert.equal((await api.session(second.session_id)).status, 200);
  });

  for (const email of [
    'tenant@example.com',
    'TENANT@EXAMPLE.COM',
    'Tenant@Example.com',
    'tEnAnT@eXaMpLe.CoM',
  ]) {
    it(`the email is compared case-insensitively (${email})`, async () => {
      const { session_id } = await api.loginOk(email);
      assert.equal((await api.session(session_id)).body.user.user_id, 1);
    });
  }

  it('unknown email: 404 {"error": "not_found", "detail"} and no session', async () => {
    await assertWritesNothing(t.db, async () =>
      assertError(await api.login({ email: 'nobody@example.com' }), 404, 'not_found'),
    );
  });

  const badBodies: [string, unknown, Record<string, string[]>][] = [
    ['missing email', {}, { email: ['This field is required.'] }],
    ['empty email', { email: '' }, { email: ['Enter a valid email address.'] }],
    ['not an email', { email: 'tenant' }, { email: ['Enter a valid email address.'] }],
    ['email as a number', { email: 42 }, { email: ['Not a valid string: send the value in quotes.'] }],
    ['email null', { email: null }, { email: ['Not a valid string: send the value in quotes.'] }],
    [
      'email longer than 254',
      { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com` },
      { email: ['Ensure this field has no more than 254 characters.'] },
    ],
    [
      'empty payment_reference',
      { email: 'tenant@example.com', payment_reference: '' },
      { payment_reference: ['This field may not be blank.'] },
    ],
    [
      'payment_reference as a number',
      { email: 'tenant@example.com', payment_reference: 7 },
      { payment_reference: ['Not a valid string: send the value in quotes.'] },
    ],
    [
      'payment_reference with a NUL',
      { email: 'tenant@example.com', payment_reference: 'REF\u0000' },
      { payment_reference: ['Null characters are not allowed.'] },
    ],
    [
      'payment_reference with an unpaired surrogate',
      { email: 'tenant@example.com', payment_reference: 'REF\udc00' },
      { payment_reference: ['Enter valid Unicode text.'] },
    ],
    [
      'a body that is an array',
      [{ email: 'tenant@example.com' }],
      { non_field_errors: ['Expected an object.'] },
    ],
    ['a body that is a string', 'tenant@example.com', { non_field_errors: ['Expected an object.'] }],
  ];
  for (const [name, body, errors] of badBodies) {
    it(`${name}: 400 field error`, async () => {
      assertAnswer(await api.login(body), 400, errors);
    });
  }

  it('a user without an active tenancy: 400 {"error": "no_active_tenancy", "detail"}', async () => {
    await assertWritesNothing(
      t.db,
      async () => assertError(await api.login({ email: 'inactive@example.com' }), 400, 'no_active_tenancy'),
      'no session',
    );
  });

  it('stores the token hashed only', async () => {
    const { token, session_id } = await api.loginOk('tenant@example.com');
    const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM sessions');
    const dump = JSON.stringify(rows);
    assert.ok(!dump.includes(token), 'the token itself is not stored');
    assert.ok(!dump.includes(token.slice('rp_ust_'.length, 30)), 'no large part of it either');
    const [row] = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE id = $1', [
      session_id,
    ]);
    assert.equal(row?.token_hash, sha256Hex(token));
  });

  it('the token is not logged', async () => {
    const { token } = await api.loginOk('tenant@example.com');
    await api.clientSession(token);
    assert.ok(!t.logs.text.includes(token));
  });
});

describe('user-login: which tenancy the session pays for', () => {
  let t: TestApp;
  let api: Api;
  const reference = async (email: string, paymentReference?: string) =>
    (await api.view(email, paymentReference)).tenancy.payment_reference;
  const one = { user_id: 1, email: 'one@example.com' };
  const two = { user_id: 2, email: 'two@example.com' };
  const three = { user_id: 3, email: 'three@example.com' };

  before(async () => {
    ({ t, api } = await startIntegration());
    // User 1: a primary active tenancy, then (later) a newer non-primary active one and an inactive one.
    await api.onboardOk(userWithTenancies(one, { payment_reference: 'P-PRIMARY', is_primary: true }));
    t.clock.advance(MINUTE);
    await api.onboardOk(
      userWithTenancies(
        one,
        { payment_reference: 'P-NEWER', address_1: '2 Newer Road', is_primary: false },
        { payment_reference: 'P-INACTIVE', address_1: '3 Old Road', is_primary: false, is_active: false },
      ),
    );
    // User 2: no primary active tenancy (the primary one is inactive): the newest active one wins.
    await api.onboardOk(
      userWithTenancies(
        two,
        { payment_reference: 'Q-OLDER', is_primary: false },
        {
          payment_reference: 'Q-PRIMARY-ENDED',
          address_1: '9 Ended Road',
          is_primary: true,
          is_active: false,
        },
      ),
    );
    t.clock.advance(MINUTE);
    await api.onboardOk(
      userWithTenancies(two, {
        payment_reference: 'Q-NEWEST',
        address_1: '5 Newest Road',
        is_primary: false,
      }),
    );
    // User 3: two non-primary active tenancies onboarded in one request.
    await api.onboardOk(
      userWithTenancies(
        three,
        { payment_reference: 'R-LATER', start_rent_date: '2026-06-01', is_primary: false },
        { payment_reference: 'R-EARLIER', start_rent_date: '2026-01-01', address_1: 'x', is_primary: false },
      ),
    );
  });
  after(() => t.close());

  it('default: the primary active tenancy, even when a newer active one exists', async () => {
    assert.equal(await reference('one@example.com'), 'P-PRIMARY');
  });

  it('default without a primary active tenancy: the newest active one', async () => {
    assert.equal(await reference('two@example.com'), 'Q-NEWEST');
  });

  it('default among tenancies onboarded together: the one starting last (deterministic)', async () => {
    for (let i = 0; i < 5; i++) assert.equal(await reference('three@example.com'), 'R-LATER');
  });

  it('named: that tenancy, primary or not', async () => {
    assert.equal(await reference('one@example.com', 'P-NEWER'), 'P-NEWER');
    assert.equal(await reference('one@example.com', 'P-PRIMARY'), 'P-PRIMARY');
    assert.equal(await reference('two@example.com', 'Q-OLDER'), 'Q-OLDER');
  });

  const loginAsOne = (payment_reference: string) => api.login({ email: one.email, payment_reference });

  it('named but inactive: 400 no_active_tenancy', async () => {
    assertError(await loginAsOne('P-INACTIVE'), 400, 'no_active_tenancy', /P-INACTIVE/);
  });

  for (const [name, paymentReference] of [
    ['named but unknown: 404 not_found', 'NOPE'],
    ['named but another user’s: 404 not_found, as unknown', 'Q-NEWEST'],
    ['the reference is matched exactly (case matters)', 'p-newer'],
  ] as const) {
    it(name, async () => {
      assertError(await loginAsOne(paymentReference), 404, 'not_found');
    });
  }
});

describe('user-login: logins sent at once', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;

  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator({ ...UNLIMITED }));
    otherApi = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
    await api.onboardOk([
      userWithTenancies(
        { user_id: 1, email: 'one@example.com' },
        { payment_reference: 'ONE-NOW' },
        { payment_reference: 'ONE-OLD', address_1: '3 Old Road', is_primary: false, is_active: false },
      ),
      userWithTenancies(
        { user_id: 2, email: 'ended@example.com' },
        { payment_reference: 'ENDED', is_active: false },
      ),
    ]);
    await otherApi.onboardOk(
      userWithTenancies({ user_id: 7, email: 'other@example.com' }, { payment_reference: 'OTHER' }),
    );
    // Both server tokens are read once, so the logins below reach user-login in the same turn.
    await api.loginOk('one@example.com');
    await otherApi.loginOk('other@example.com');
  });
  after(() => t.close());

  it('each is answered as if alone, and they share a statement', async (ctx) => {
    const cases: [Api, Record<string, unknown>, number, string][] = [
      [api, { email: 'one@example.com' }, 200, 'ONE-NOW'],
      [
        api,
        { email: 'ONE@example.com', payment_reference: 'ONE-NOW', pure_amount: '950.00' },
        200,
        'ONE-NOW',
      ],
      [api, { email: 'nobody@example.com' }, 404, 'not_found'],
      [api, { email: 'ended@example.com' }, 400, 'no_active_tenancy'],
      [api, { email: 'one@example.com', payment_reference: 'ONE-OLD' }, 400, 'no_active_tenancy'],
      [api, { email: 'one@example.com', payment_reference: 'NOPE' }, 404, 'not_found'],
      [api, { email: 'other@example.com' }, 404, 'not_found'],
      [otherApi, { email: 'other@example.com' }, 200, 'OTHER'],
      [otherApi, { email: 'one@example.com' }, 404, 'not_found'],
    ];
    const all = [...cases, ...cases, ...cases];
    const batchMetrics = async () => {
      const text = (await t.app.inject('/metrics')).body;
      const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
      return {
        statements: value('rentpay_user_login_batch_size_count'),
        logins: value('rentpay_user_login_batch_size_sum'),
        splits: value('rentpay_user_login_batch_splits_total'),
      };
    };
    const metricsBefore = await batchMetrics();
    // How many logins each user-login statement carried, seen on the app's own database.
    const query = ctx.mock.method(t.db, 'query');
    const added = await rowsAddedBy(t.db, async () => {
      const answers = await Promise.all(all.map(([client, body]) => client.login(body)));
      for (const [i, [client, body, status, expected]] of all.entries()) {
        const answer = answers[i]!;
        assert.equal(answer.status, status, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        if (status !== 200) {
          assert.equal(answer.body.error, expected, JSON.stringify(body));
          continue;
        }
        const session = await client.session(answer.body.session_id);
        assert.equal(session.body.tenancy.payment_reference, expected);
        const page = await client.clientSession(answer.body.token);
        assert.equal(page.status, 200);
        assert.deepEqual(page.body.amount, {
          pure_amount: body.pure_amount ?? null,
          editable: body.pure_amount === undefined,
        });
      }
      const tokens = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.token));
      assert.equal(tokens.size, 9, 'every session has its own token');
    });
    const statements = query.mock.calls
      .filter((call) => call.arguments[2]?.prepare === 'user-login')
      .map((call) => (call.arguments[1] as unknown[][])[0]!.length);
    assert.equal(added.sessions, 9);
    assert.equal(
      statements.reduce((sum, n) => sum + n, 0),
      all.length,
      'every login ran in a user-login statement',
    );
    assert.ok(
      statements.length < all.length / 3,
      `${all.length} logins ran as ${statements.length} statements`,
    );
    const metricsAfter = await batchMetrics();
    assert.deepEqual(
      {
        statements: metricsAfter.statements - metricsBefore.statements,
        logins: metricsAfter.logins - metricsBefore.logins,
        splits: metricsAfter.splits - metricsBefore.splits,
      },
      { statements: statements.length, logins: all.length, splits: 0 },
      '/metrics counts the statements and the logins they carried',
    );
  });
});

describe('session query: GET /api/third-party/session/{session_id}/', () => {
  let t: TestApp;
  let api: Api;
  const tenancyWithPlan = { payment_reference: 'PLAN-1', installment_payment: twoInstallmentPlan(1200.25) };
  const userWithPlan = userWithTenancies(
    {
      user_id: 1,
      email: 'tenant@example.com',
      kyc: { pii_front: 'https://docs.example/front.jpg', status: 'verified' },
    },
    tenancyWithPlan,
  );
  before(async () => {
    ({ t, api } = await startIntegration());
    await api.onboardOk([
      userWithPlan,
      userWithTenancies({ user_id: 2, email: 'noplan@example.com' }, { payment_reference: 'NOPLAN-2' }),
    ]);
  });
  after(() => t.close());

  it('answers exactly the contract’s shape', async () => {
    const createdAt = t.clock.now();
    const { session_id } = await api.loginOk('tenant@example.com');
    const response = await api.session(session_id);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const body = response.body;
    assert.deepEqual(Object.keys(body).sort(), [
      'amount',
      'bank_account',
      'created_at',
      'expires_at',
      'payments',
      'session_id',
      'status',
      'tenancy',
      'user',
    ]);
    assert.equal(body.session_id, session_id);
    assert.equal(body.status, 'active');
    assert.equal(body.created_at, createdAt.toISOString());
    assert.equal(body.expires_at, new Date(createdAt.getTime() + 30 * MINUTE).toISOString());
    assert.deepEqual(body.payments, []);
    assert.deepEqual(
      body.amount,
      { pure_amount: null, editable: true },
      'without pure_amount the tenant chooses',
    );
    // kyc_documents carries the fetch state of each KYC document link, which the session query shows beside the
    // agreement's.
    assert.deepEqual(Object.keys(body.user).sort(), [
      'date_of_birth',
      'email',
      'first_name',
      'kyc',
      'kyc_documents',
      'last_name',
      'phone_number',
      'user_id',
    ]);
    // Exactly what was onboarded: no field dropped, renamed or reformatted; KYC members not sent are null.
    const { tenant: _tenancies, ...userFields } = userWithPlan;
    assert.deepEqual(body.user, {
      ...userFields,
      kyc: { pii_front: 'https://docs.example/front.jpg', pii_back: null, photo: null, status: 'verified' },
      kyc_documents: { pii_front: PENDING_DOCUMENT },
    });
    assert.deepEqual(Object.keys(body.tenancy).sort(), [
      'address_1',
      'agreement',
      'agreement_document',
      'amount',
      'city',
      'country',
      'end_rent_date',
      'frequency',
      'installment_payment',
      'is_active',
      'is_primary',
      'payment_reference',
      'post_code',
      'recipient_bank_account_name',
      'recipient_bank_account_number',
      'recipient_bank_sort_code',
      'rent_due_day',
      'start_rent_date',
    ]);
    assert.deepEqual(body.tenancy, { ...tenancyBody(tenancyWithPlan), agreement_document: PENDING_DOCUMENT });
    assert.deepEqual(body.bank_account, DEFAULT_BANK_ACCOUNT);
  });

  it('installment_payment is absent when the tenancy has none', async () => {
    const view = await api.view('noplan@example.com');
    assert.equal('installment_payment' in view.tenancy, false);
    assert.equal(view.tenancy.amount, '1200.00');
    assert.deepEqual(view.user.kyc, { pii_front: null, pii_back: null, photo: null, status: 'pending' });
    assert.deepEqual(view.user.kyc_documents, {});
  });

  it('status is active until 30 minutes after user-login, then expired', async () => {
    const { session_id } = await api.loginOk('tenant@example.com');
    t.clock.advance(30 * MINUTE - 1);
    assert.equal((await api.session(session_id)).body.status, 'active');
    t.clock.advance(1);
    const expired = await api.session(session_id);
    assert.equal(expired.status, 200, 'an expired session can still be queried');
    assert.equal(expired.body.status, 'expired');
  });

  it('an unknown session id: 404 {"error": "not_found", "detail"}', async () => {
    assertError(
      await api.session('ses_doesnotexist0000000000'),
      404,
      'not_found',
      /^No session ses_doesnotexist0000000000\. Use a session_id that user-login returned; a session is visible only to the integrator that opened it\.$/,
    );
  });

  for (const [name, id] of [
    // Longer than any id, yet within the router's parameter length (100).
    ['longer than any id', `ses_${'a'.repeat(90)}`],
    ['with a NUL', 'ses_\u0000'],
    ['with odd characters', "ses_'; DROP TABLE sessions; --"],
    ['with non-ASCII characters', 'ses_é🏠'],
  ] as const) {
    it(`a session id ${name}: 400 naming the shape of a session id, not a 500`, async () => {
      assertError(
        await api.session(id),
        400,
        'invalid_request',
        id.includes('\u0000')
          ? /^Invalid params: session_id: Null characters are not allowed\.$/
          : /^Invalid params: session_id: (Enter a session id: "ses_" followed by letters and digits|Ensure this field has no more than 64 characters)\./,
      );
    });
  }

  it('the trailing slash is part of the path', async () => {
    const { session_id } = await api.loginOk('tenant@example.com');
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/third-party/session/${session_id}`,
      headers: tokenHeader(api.serverToken),
    });
    assert.equal(response.statusCode, 404);
  });
});

describe('Client API: GET /api/client/session', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    ({ t, api } = await startIntegration({ fees: { card: { percent: '1.4', fixed: '0.20' } } }));
    await api.onboardOk(userBody({ user_id: 1, email: 'tenant@example.com' }));
  });
  after(() => t.close());

  it('200 with the tenant, the tenancy’s rent_amount, the integrator’s fees and the features', async () => {
    const login = await api.login({ email: 'tenant@example.com' });
    const response = await api.clientSession(login.body.token);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const body = response.body;
    assert.equal(body.session_id, login.body.session_id);
    assert.equal(body.expires_at, login.body.session_expires_at);
    assert.equal(body.token_expires_at, login.body.expires_at);
    assert.equal(body.environment, 'sandbox');
    assert.deepEqual(body.tenant, { first_name: 'Ada', last_name: 'Lovelace', email: 'tenant@example.com' });
    assert.equal(body.tenancy.rent_amount, '1200.00');
    assert.equal(body.tenancy.payment_reference, 'REF-0001');
    assert.equal(body.tenancy.frequency, 'every_1_month');
    assert.equal(body.currency, 'GBP');
    assert.deepEqual(body.fees, { card: { percent: '1.40', fixed: '0.20' } });
    assert.deepEqual(body.features, { apms: true, wallets: true, recurring: true, savedCards: true });
    assert.equal(JSON.stringify(body).includes('recipient_bank'), false, 'no landlord bank details');
  });

  it('the token works for 15 minutes, then 401 session_expired (while the session itself is still active)', async () => {
    const { token, session_id } = await api.loginOk('tenant@example.com');
    t.clock.advance(15 * MINUTE - 1);
    assert.equal((await api.clientSession(token)).status, 200);
    t.clock.advance(1);
    assertError(await api.clientSession(token), 401, 'session_expired');
    assert.equal((await api.session(session_id)).body.status, 'active');
  });

  it('a new user-login gives a working token again', async () => {
    const { token } = await api.loginOk('tenant@example.com');
    assert.equal((await api.clientSession(token)).status, 200);
  });

  it('an unknown user session token: 401', async () => {
    assertError(await api.clientSession(`rp_ust_${'A'.repeat(43)}`), 401, 'session_expired');
  });

  const assertUnauthorized = (response: Answer) => {
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'unauthorized');
  };

  it('no Authorization header: 401', async () => {
    assertUnauthorized(await send(t, { method: 'GET', url: CLIENT_SESSION }));
  });

  it('the server token on the Client API: 401, with either scheme', async () => {
    assertError(await api.clientSession(api.serverToken), 401, 'unauthorized', /server token/);
    assertUnauthorized(
      await send(t, { method: 'GET', url: CLIENT_SESSION, headers: tokenHeader(api.serverToken) }),
    );
  });

  it('a real user session token on the Integration API: 401 on every endpoint, with either scheme', async () => {
    const { token, session_id } = await api.loginOk('tenant@example.com');
    for (const scheme of ['Token', 'Bearer']) {
      const headers = { authorization: `${scheme} ${token}`, 'content-type': 'application/json' };
      for (const request of [
        { method: 'GET' as const, url: sessionPath(session_id) },
        {
          method: 'POST' as const,
          url: USER_LOGIN,
          payload: JSON.stringify({ email: 'tenant@example.com' }),
        },
        { method: 'POST' as const, url: ONBOARDING, payload: JSON.stringify(userBody({ user_id: 9 })) },
      ]) {
        const response = await t.app.inject({ ...request, headers });
        assert.equal(response.statusCode, 401, `${scheme} ${request.url}`);
        assert.equal(response.json().error, 'unauthorized');
        assert.match(response.json().detail, /user session token/);
      }
    }
    assert.equal(
      (await api.clientSession(token)).status,
      200,
      'the token itself still works where it belongs',
    );
  });
});
