import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, PENDING_DOCUMENT, send, sessionPath } from '../../support/api-client.ts';
import { DEFAULT_BANK_ACCOUNT, tenancyBody, userBody } from '../../support/fixtures.ts';
import type { TestApp } from '../../support/helpers.ts';
import { cardToken, newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

const MINUTE = 60_000;

describe('GET /api/third-party/session/{session_id}/ (getSession)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    ({ t, api, otherApi } = await startPaymentApp());
  });
  after(() => t.close());

  it('200: the session, its user, tenancy and bank account as onboarded, no payments yet', async () => {
    const tenant = await newTenant(t, api);
    const answer = await api.session(tenant.sessionId);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const now = t.clock.now().getTime();
    const { tenant: _tenancies, ...user } = userBody({ user_id: tenant.userId, email: tenant.email });
    assert.deepEqual(answer.body, {
      session_id: tenant.sessionId,
      status: 'active',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 30 * MINUTE).toISOString(),
      amount: { pure_amount: null, editable: true },
      user: { ...user, kyc_documents: {} },
      tenancy: {
        ...tenancyBody({ payment_reference: `PAY-${tenant.userId}` }),
        agreement_document: PENDING_DOCUMENT,
      },
      bank_account: DEFAULT_BANK_ACCOUNT,
      payments: [],
    });
  });

  it('a payment made in the session is listed, and the session is completed', async () => {
    const tenant = await newTenant(t, api);
    const paid = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    const answer = await api.session(tenant.sessionId);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'completed');
    const { next_action: _nextAction, ...payment } = paid.body;
    assert.deepEqual(answer.body.payments, [payment]);
    assert.deepEqual([payment.pure_amount, payment.fee, payment.amount], ['1200.00', '17.40', '1217.40']);
  });

  it('expired from 30 minutes after user-login on, and still readable', async () => {
    const tenant = await newTenant(t, api);
    t.clock.advance(30 * MINUTE - 1);
    assert.equal((await api.session(tenant.sessionId)).body.status, 'active');
    t.clock.advance(1);
    const answer = await api.session(tenant.sessionId);
    assert.deepEqual([answer.status, answer.body.status], [200, 'expired']);
  });

  it('400 for an id that is not a session id; 404 for an unknown one', async () => {
    assertError(
      await api.session('not-a-session'),
      400,
      'invalid_request',
      /^Invalid params: session_id: Enter a session id: "ses_" followed by letters and digits\.$/,
    );
    assertError(
      await api.session('ses_unknown123'),
      404,
      'not_found',
      /^No session ses_unknown123\. Use a session_id that user-login returned; a session is visible only to the integrator that opened it\.$/,
    );
  });

  it('another integrator’s session is 404, as an unknown one, its payments not shown', async () => {
    const theirs = await newTenant(t, otherApi);
    await theirs.client.pay({ card_token: await cardToken(t, PAN.visa) });
    const answer = await api.session(theirs.sessionId);
    assertError(answer, 404, 'not_found', new RegExp(`^No session ${theirs.sessionId}\\. Use a session_id`));
    assert.ok(!JSON.stringify(answer.body).includes(theirs.email));
  });

  it('401 with the Bearer scheme instead of Token', async () => {
    const tenant = await newTenant(t, api);
    const answer = await send(t, {
      method: 'GET',
      url: sessionPath(tenant.sessionId),
      headers: { authorization: `Bearer ${api.serverToken}` },
    });
    assertError(answer, 401, 'unauthorized', /^Unsupported authorization scheme "Bearer"\./);
    assert.equal(answer.headers['www-authenticate'], 'Token');
  });
});
