import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Api,
  assertWritesNothing,
  integrationApi,
  startIntegration,
  UNLIMITED,
} from '../../support/api-client.ts';
import { userWithTenancies } from '../../support/fixtures.ts';
import type { TestApp } from '../../support/helpers.ts';

/** Each integrator sees only its own users, tenancies, sessions and payments. */
describe('isolation between integrators', () => {
  let t: TestApp;
  let a: Api;
  let b: Api;
  let sessionOfA: string;
  let tokenOfA: string;
  const userOfA = userWithTenancies(
    { user_id: 1, email: 'Shared@Example.com', first_name: 'Alice' },
    { payment_reference: 'SHARED-REF', amount: '1000.00' },
  );

  before(async () => {
    ({ t, api: a } = await startIntegration({ name: 'Platform A' }));
    b = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Platform B' }));
    await a.onboardOk(userOfA);
    ({ session_id: sessionOfA, token: tokenOfA } = await a.loginOk('shared@example.com'));
  });
  after(() => t.close());

  it('B cannot see A’s session: 404, identical to an unknown id', async () => {
    const foreign = await b.session(sessionOfA);
    assert.equal(foreign.status, 404);
    // An unknown id of the same length and form, to compare the whole answer.
    const unknownId = `ses_${'Z'.repeat(sessionOfA.length - 4)}`;
    const unknown = await b.session(unknownId);
    assert.equal(unknown.status, 404);
    assert.deepEqual(foreign.body, {
      ...unknown.body,
      detail: unknown.body.detail.replace(unknownId, sessionOfA),
    });
    assert.deepEqual(Object.keys(foreign.body).sort(), ['detail', 'error']);
    assert.equal(foreign.body.error, 'not_found');
    assert.ok(!JSON.stringify(foreign.body).includes('Alice'), 'nothing of A’s user leaks');
    assert.equal((await a.session(sessionOfA)).status, 200, 'A still sees it');
  });

  it('B cannot log A’s user in: 404, as an unknown email', async () => {
    await assertWritesNothing(
      t.db,
      async () => {
        const foreign = await b.login({ email: 'shared@example.com' });
        const unknown = await b.login({ email: 'nobody@example.com' });
        assert.equal(foreign.status, 404);
        assert.deepEqual(foreign.body, unknown.body);
        assert.equal(
          (await b.login({ email: 'shared@example.com', payment_reference: 'SHARED-REF' })).status,
          404,
        );
      },
      'no session created',
    );
  });

  it('A’s user session token answers the Client API with A’s data only, whoever passes it', async () => {
    const response = await a.clientSession(tokenOfA);
    assert.equal(response.status, 200);
    assert.equal(response.body.tenant.first_name, 'Alice');
  });

  it('B onboarding the same user_id creates B’s own user (created 1); A’s user is unchanged', async () => {
    const counts = await b.onboardOk(
      userWithTenancies(
        { user_id: 1, email: 'bob@example.com', first_name: 'Bob' },
        { payment_reference: 'B-ONLY', amount: '500.00' },
      ),
    );
    assert.equal(counts.created, 1);
    assert.equal(counts.updated, 0);
    const ofA = await a.view('shared@example.com');
    assert.equal(ofA.user.first_name, 'Alice');
    assert.equal(ofA.user.email, 'Shared@Example.com');
    assert.equal(ofA.tenancy.payment_reference, 'SHARED-REF');
    assert.equal(ofA.tenancy.amount, '1000.00');
    const ofB = await b.view('bob@example.com');
    assert.equal(ofB.user.user_id, 1);
    assert.equal(ofB.user.first_name, 'Bob');
    assert.equal((await a.login({ email: 'bob@example.com' })).status, 404, 'A cannot log in B’s user');
  });

  it('the same email under B is allowed (uniqueness is per integrator), in any case', async () => {
    await b.onboardOk(
      userWithTenancies(
        { user_id: 2, email: 'SHARED@example.com', first_name: 'Bea' },
        { payment_reference: 'B-2' },
      ),
    );
    assert.equal((await b.view('shared@example.com')).user.first_name, 'Bea');
    assert.equal((await a.view('shared@example.com')).user.first_name, 'Alice', 'each logs in its own user');
  });

  it('A’s payment_reference is free under B (uniqueness is per integrator) and collides with nothing of A’s', async () => {
    await b.onboardOk(
      userWithTenancies(
        { user_id: 3, email: 'carol@example.com' },
        { payment_reference: 'SHARED-REF', amount: '750.00', address_1: 'B Street' },
      ),
    );
    const ofB = await b.view('carol@example.com', 'SHARED-REF');
    assert.equal(ofB.tenancy.amount, '750.00');
    assert.equal(ofB.tenancy.address_1, 'B Street');
    const ofA = await a.view('shared@example.com', 'SHARED-REF');
    assert.equal(ofA.tenancy.amount, '1000.00');
    assert.equal(ofA.tenancy.address_1, '10 Downing Street');
  });

  it('B sending A’s user’s exact tenancy identity neither updates nor sees A’s tenancy', async () => {
    const response = await b.onboard({ ...userOfA, email: 'copy@example.com', user_id: 4 });
    // Under B, SHARED-REF already belongs to B's user 3: a new tenancy reusing it is refused, within B.
    assert.equal(response.status, 400);
    assert.deepEqual(Object.keys(response.body), ['tenant.0.payment_reference']);
    assert.equal((await a.view('shared@example.com')).tenancy.amount, '1000.00');
  });

  it('A updating its user changes nothing of B’s same-numbered user', async () => {
    await a.onboardOk({ ...userOfA, first_name: 'Alicia' });
    assert.equal((await a.view('shared@example.com')).user.first_name, 'Alicia');
    assert.equal((await b.view('bob@example.com')).user.first_name, 'Bob');
  });
});
