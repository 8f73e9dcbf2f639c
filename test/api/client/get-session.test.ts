import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertClientTokenRequired, cardPayment } from '../../support/operation-tests.ts';
import { newTenant, startPaymentApp } from '../../support/payment-client.ts';

const SESSION_KEYS = [
  'action_required',
  'amount',
  'currency',
  'environment',
  'expires_at',
  'expires_in_seconds',
  'features',
  'fees',
  'limits',
  'paid',
  'paid_applied_to',
  'processor',
  'session_id',
  'tenancy',
  'tenant',
  'token_expires_at',
];

describe('GET /api/client/session (getSession)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: the session of the token, its tenant and tenancy, fees, limits, processor and features; unpaid', async () => {
    const tenant = await newTenant(t, api);
    const answer = await tenant.client.call('GET', '/session');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const session = answer.body;
    assert.deepEqual(Object.keys(session).sort(), SESSION_KEYS);
    const now = t.clock.now().getTime();
    assert.equal(session.session_id, tenant.sessionId);
    assert.equal(session.environment, 'sandbox');
    assert.equal(session.expires_at, new Date(now + 30 * 60_000).toISOString());
    assert.equal(session.token_expires_at, new Date(now + 15 * 60_000).toISOString());
    assert.equal(session.expires_in_seconds, 900);
    assert.equal(session.paid, null);
    assert.deepEqual(session.action_required, []);
    assert.deepEqual(session.tenant, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: tenant.email,
    });
    assert.equal(session.tenancy.payment_reference, `PAY-${tenant.userId}`);
    assert.equal(session.tenancy.rent_amount, '1200.00');
    assert.equal(session.tenancy.payee, 'Landlord Ltd');
    assert.equal(session.tenancy.next_due_date, '2026-03-01');
    assert.deepEqual(session.tenancy.installments, []);
    assert.equal(session.currency, 'GBP');
    assert.deepEqual(session.limits, { min_amount: '1.00', max_amount: '100000.00' });
    assert.deepEqual(session.fees, { card: { percent: '1.45', fixed: '0.00' } });
    assert.equal(session.processor.name, 'sandbox');
    assert.deepEqual(session.features, { apms: true, wallets: true, recurring: true, savedCards: true });
  });

  it('after a payment succeeds, paid is that payment (without next_action)', async () => {
    const tenant = await newTenant(t, api);
    const payment = await cardPayment(t, tenant.client);
    const { next_action: _, ...view } = payment;
    const session = (await tenant.client.call('GET', '/session')).body;
    assert.deepEqual(session.paid, view);
    assert.deepEqual(session.paid_applied_to, [
      { due_date: '2026-01-01', amount: '1200.00', rent: '1200.00' },
    ]);
  });

  it('a token reaches its own session only: another tenant’s, of this or another integrator, shows theirs', async () => {
    const ann = await newTenant(t, api);
    for (const other of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      const session = (await other.client.call('GET', '/session')).body;
      assert.equal(session.session_id, other.sessionId);
      assert.notEqual(session.session_id, ann.sessionId);
      assert.equal(session.tenant.email, other.email);
    }
    assert.equal((await otherApi.session(ann.sessionId)).status, 404, 'nor can the other integrator read it');
  });

  it('401 without a token, and once the token has lapsed', async () => {
    await assertClientTokenRequired(t, api, { method: 'GET', url: '/api/client/session' });
  });
});
