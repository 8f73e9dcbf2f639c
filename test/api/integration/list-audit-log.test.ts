import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Answer,
  type Api,
  assertError,
  integrationApi,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, newTenant, PAN } from '../../support/payment-client.ts';

const ENTRY_KEYS = [
  'action',
  'actor',
  'address',
  'after',
  'audit_entry_id',
  'before',
  'created_at',
  'hash',
  'prev_hash',
  'request_id',
  'seq',
  'target',
];

describe('GET /api/third-party/audit-log/ (listAuditLog)', () => {
  let t: TestApp;
  let api: Api;
  let other: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    other = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
  });
  after(() => t.close());

  const list = (as: Api, query = '') =>
    send(t, {
      method: 'GET',
      url: `/api/third-party/audit-log/${query}`,
      headers: tokenHeader(as.serverToken),
    });

  async function rotateSecret(as: Api): Promise<Answer> {
    const answer = await send(t, {
      method: 'POST',
      url: '/api/third-party/webhook-endpoint/rotate-secret/',
      headers: tokenHeader(as.serverToken),
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer;
  }

  it('200: your changes newest first, each naming who, what, from where, chained to the one before', async () => {
    const tenant = await newTenant(t, api);
    const paid = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    t.clock.advance(1000);
    const refunded = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${paid.body.payment_id}/refunds/`,
      headers: { ...tokenHeader(api.serverToken), 'idempotency-key': 'audit-1' },
      payload: { amount: '100.00' },
    });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    t.clock.advance(1000);
    const rotated = await rotateSecret(api);

    const answer = await list(api);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.has_more, false);
    const [rotation, refund, ...older] = answer.body.data;
    assert.deepEqual(Object.keys(rotation).sort(), ENTRY_KEYS);
    assert.deepEqual(
      answer.body.data.map((entry: { action: string }) => entry.action),
      ['webhook_secret.rotate', 'payment.refund', ...older.map((entry: { action: string }) => entry.action)],
    );
    assert.ok(
      older.some((entry: { action: string }) => entry.action === 'integrator.create'),
      'the operator made it',
    );

    const serverToken = { type: 'server_token', integrator_id: api.integratorId };
    assert.deepEqual({ ...refund.actor, token_id: undefined }, { ...serverToken, token_id: undefined });
    assert.match(refund.actor.token_id, /^tok_/);
    assert.deepEqual(refund.target, { type: 'payment', id: paid.body.payment_id });
    assert.deepEqual(refund.before, { refunded: '0.00' });
    assert.deepEqual(refund.after, { refund_id: refunded.body.refund_id, amount: '100.00' });
    assert.equal(refund.request_id, refunded.headers['x-request-id']);
    assert.equal(refund.address, '127.0.0.1');
    assert.equal(rotation.request_id, rotated.headers['x-request-id']);
    assert.deepEqual(rotation.target, { type: 'integrator', id: api.integratorId });
    assert.equal(rotation.created_at, t.clock.now().toISOString());

    const seqs = answer.body.data.map((entry: { seq: number }) => entry.seq);
    assert.deepEqual(
      seqs,
      [...seqs.keys()].map((i) => seqs.length - i),
      'one chain, 1 to n',
    );
    for (let i = 0; i < answer.body.data.length - 1; i++) {
      assert.equal(answer.body.data[i].prev_hash, answer.body.data[i + 1].hash);
    }
    assert.equal(answer.body.data.at(-1).prev_hash, '0'.repeat(64));
  });

  it('an operator’s change to your settings is in your log, naming the operator token', async () => {
    const changed = await send(t, {
      method: 'PATCH',
      url: `/api/operator/integrators/${api.integratorId}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      payload: { allowed_origins: ['https://tenants.example.com'] },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const [entry] = (await list(api, '?limit=1')).body.data;
    assert.equal(entry.action, 'integrator.update');
    assert.deepEqual(entry.actor, { type: 'operator_token', via: 'api' });
    assert.deepEqual(entry.after, { allowed_origins: ['https://tenants.example.com'] });
    assert.deepEqual(entry.before, { allowed_origins: [] });
  });

  it('cursor paging: limit and starting_after walk the whole log once', async () => {
    for (let i = 0; i < 3; i++) await rotateSecret(api);
    const all = (await list(api, '?limit=100')).body.data.map(
      (entry: { audit_entry_id: string }) => entry.audit_entry_id,
    );
    const walked: string[] = [];
    let query = '?limit=2';
    for (;;) {
      const page = await list(api, query);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      walked.push(...page.body.data.map((entry: { audit_entry_id: string }) => entry.audit_entry_id));
      if (!page.body.has_more) break;
      query = `?limit=2&starting_after=${walked.at(-1)}`;
    }
    assert.deepEqual(walked, all);
  });

  it('400 for a bad limit or cursor; a cursor of another integrator’s log is unknown', async () => {
    assertError(await list(api, '?limit=0'), 400, 'invalid_request', /limit/);
    assertError(await list(api, '?limit=101'), 400, 'invalid_request', /limit/);
    assertError(
      await list(api, '?starting_after=nope'),
      400,
      'invalid_request',
      /^Invalid querystring: starting_after: Enter an audit entry id: "aud_" followed by letters and digits\.$/,
    );
    assertError(
      await list(api, '?starting_after=aud_unknown'),
      400,
      'invalid_request',
      /^Invalid querystring: starting_after: No audit entry aud_unknown\. Pass the audit_entry_id of the last entry of the page you have\.$/,
    );
    await rotateSecret(other);
    const [theirs] = (await list(other, '?limit=1')).body.data;
    assertError(
      await list(api, `?starting_after=${theirs.audit_entry_id}`),
      400,
      'invalid_request',
      /No audit entry/,
    );
  });

  it('another integrator sees only its own entries', async () => {
    const mine = new Set(
      (await list(api, '?limit=100')).body.data.map(
        (entry: { audit_entry_id: string }) => entry.audit_entry_id,
      ),
    );
    const theirs = (await list(other, '?limit=100')).body.data;
    assert.ok(theirs.length > 0);
    for (const entry of theirs) {
      assert.ok(!mine.has(entry.audit_entry_id));
      assert.notEqual(entry.actor.integrator_id, api.integratorId);
    }
  });

  it('401 without a token', async () => {
    assertError(
      await send(t, { method: 'GET', url: '/api/third-party/audit-log/' }),
      401,
      'unauthorized',
      /^Authentication credentials were not provided\./,
    );
  });
});
