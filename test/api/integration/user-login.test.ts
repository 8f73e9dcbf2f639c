import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Api,
  assertAnswer,
  assertError,
  assertWritesNothing,
  integrationApi,
  send,
  UNLIMITED,
  USER_LOGIN,
} from '../../support/api-client.ts';
import { userWithTenancies } from '../../support/fixtures.ts';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

const MINUTE = 60_000;

describe('POST /api/third-party/user-login/ (userLogin)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    otherApi = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
    await api.onboardOk([
      userWithTenancies(
        { user_id: 1, email: 'jane@example.com' },
        { payment_reference: 'JANE-A' },
        { payment_reference: 'JANE-B', address_1: '2 Second Street', is_primary: false },
        { payment_reference: 'JANE-OLD', address_1: '3 Old Road', is_primary: false, is_active: false },
      ),
      userWithTenancies(
        { user_id: 2, email: 'ended@example.com' },
        { payment_reference: 'ENDED', is_active: false },
      ),
    ]);
    await otherApi.onboardOk(
      userWithTenancies({ user_id: 9, email: 'theirs@example.com' }, { payment_reference: 'X' }),
    );
  });
  after(() => t.close());

  it('200 {token, session_id, expires_at, session_expires_at}: a new session for the primary active tenancy', async () => {
    const now = t.clock.now().getTime();
    const answer = await api.login({ email: 'Jane@Example.com' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), [
      'expires_at',
      'session_expires_at',
      'session_id',
      'token',
    ]);
    assert.match(answer.body.token, /^rp_ust_[A-Za-z0-9]{43}$/);
    assert.match(answer.body.session_id, /^ses_[A-Za-z0-9]+$/);
    assert.equal(answer.body.expires_at, new Date(now + 15 * MINUTE).toISOString());
    assert.equal(answer.body.session_expires_at, new Date(now + 30 * MINUTE).toISOString());
    const session = await api.session(answer.body.session_id);
    assert.deepEqual(
      [
        session.body.status,
        session.body.user.user_id,
        session.body.tenancy.payment_reference,
        session.body.amount,
      ],
      ['active', 1, 'JANE-A', { pure_amount: null, editable: true }],
    );
    const page = await api.clientSession(answer.body.token);
    assert.equal(page.status, 200, 'the token opens the Client API');
    assert.equal(page.body.tenancy.payment_reference, 'JANE-A');
  });

  it('payment_reference chooses the tenancy; pure_amount fixes the amount, amount_editable only pre-fills it', async () => {
    const fixed = await api.loginOk('jane@example.com', 'JANE-B');
    assert.equal((await api.session(fixed.session_id)).body.tenancy.payment_reference, 'JANE-B');
    for (const [body, amount] of [
      [{ pure_amount: '950.00' }, { pure_amount: '950.00', editable: false }],
      [
        { pure_amount: '950.00', amount_editable: true },
        { pure_amount: '950.00', editable: true },
      ],
    ] as const) {
      const answer = await api.login({ email: 'jane@example.com', ...body });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual((await api.session(answer.body.session_id)).body.amount, amount);
    }
  });

  it('404 and 400 as documented, with no session opened', async () => {
    await assertWritesNothing(t.db, async () => {
      assertError(
        await api.login({ email: 'nobody@example.com' }),
        404,
        'not_found',
        /^No user with this email\. Onboard the user first\.$/,
      );
      assertError(
        await api.login({ email: 'jane@example.com', payment_reference: 'NOPE' }),
        404,
        'not_found',
        /^This user has no tenancy with payment_reference "NOPE"\. Send one this user was onboarded with, or leave payment_reference out to use the user's active tenancy\.$/,
      );
      assertError(
        await api.login({ email: 'ended@example.com' }),
        400,
        'no_active_tenancy',
        /^This user has no active tenancy to pay rent for\./,
      );
      assertError(
        await api.login({ email: 'jane@example.com', payment_reference: 'JANE-OLD' }),
        400,
        'no_active_tenancy',
        /^The tenancy "JANE-OLD" is not active\./,
      );
      for (const [body, errors] of [
        [{}, { email: ['This field is required.'] }],
        [{ email: 'jane' }, { email: ['Enter a valid email address.'] }],
        [
          { email: 'jane@example.com', payment_reference: '' },
          { payment_reference: ['This field may not be blank.'] },
        ],
        [
          { email: 'jane@example.com', pure_amount: '0.50' },
          { pure_amount: ['Enter an amount from 1.00 to 100000.00.'] },
        ],
        [
          { email: 'jane@example.com', pure_amount: '12.345' },
          { pure_amount: ['Enter an amount in pounds with at most two decimal places, e.g. "1200.00".'] },
        ],
        [
          { email: 'jane@example.com', amount_editable: false },
          {
            amount_editable: [
              'Send pure_amount to fix the amount; without it the tenant chooses the amount.',
            ],
          },
        ],
      ] as const) {
        assertAnswer(await api.login(body), 400, errors);
      }
    });
  });

  it('another integrator’s user is unknown: 404 both ways, no session', async () => {
    await assertWritesNothing(t.db, async () => {
      assertError(
        await api.login({ email: 'theirs@example.com' }),
        404,
        'not_found',
        /^No user with this email\./,
      );
      assertError(
        await otherApi.login({ email: 'jane@example.com' }),
        404,
        'not_found',
        /^No user with this email\./,
      );
    });
  });

  it('401 with a user session token in place of the server token; no session', async () => {
    const { token } = await api.loginOk('jane@example.com');
    await assertWritesNothing(t.db, async () => {
      const answer = await send(t, {
        method: 'POST',
        url: USER_LOGIN,
        headers: { authorization: `Bearer ${token}` },
        payload: { email: 'jane@example.com' },
      });
      assertError(
        answer,
        401,
        'unauthorized',
        /^This is a user session token, which is for the payment page and SDK\./,
      );
    });
  });
});
