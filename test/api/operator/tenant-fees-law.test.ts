/**
 * Tenant fees and UK law: a production integrator charges tenants a fee only with the operator's record that its
 * tenants are businesses (business_lets); sandbox integrators keep fees without it, for testing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, operatorCliEnv, send } from '../../support/api-client.ts';
import { OPERATOR_TOKEN, runCli, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { stripeConfig } from '../../support/stripe-app.ts';
import { StripeStandIn } from '../../support/stripe-server.ts';

const FEES_REFUSED =
  'Fees charged to tenants are refused in production: UK law bans surcharges on consumer card payments and, in ' +
  "England, most tenant fees. Set business_lets to true only if this platform's tenants are businesses, not " +
  'consumers; otherwise set every fee to 0.';
const BUSINESS_LETS_REQUIRED =
  'business_lets can be false in production only while every fee is 0: UK law bans surcharges on consumer card ' +
  'payments and, in England, most tenant fees. Set every fee to 0 first (or in the same request), or keep ' +
  "business_lets true if this platform's tenants are businesses, not consumers.";

const CARD_FEE = { card: { percent: '1.45', fixed: '0.20' } };
const CARD_FEE_VIEW = { card: { percent: '1.45', fixed: '0.20' } };

function operator(t: TestApp, method: 'GET' | 'POST' | 'PATCH', path: string, payload?: object) {
  return send(t, {
    method,
    url: `/api/operator${path}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    ...(payload ? { payload } : {}),
  });
}

function assertCreated(answer: Answer): void {
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
}

async function integratorCount(t: TestApp): Promise<number> {
  const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM integrators');
  return row!.n;
}

describe('tenant fees in production', () => {
  let stand: StripeStandIn;
  let t: TestApp;
  before(async () => {
    stand = await StripeStandIn.start();
    t = await startTestApp({ config: stripeConfig(stand, 'production') });
  });
  after(async () => {
    await t?.close();
    await stand?.close();
  });

  it('refuses a fee without business_lets, saying why and how to fix it, and creates nothing', async () => {
    const before = await integratorCount(t);
    for (const fees of [CARD_FEE, { apple_pay: { percent: '0', fixed: '0.01' } }]) {
      const refused = await operator(t, 'POST', '/integrators', { name: 'Homely', fees });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.deepEqual(refused.body, { fees: [FEES_REFUSED] });
    }
    const declaredFalse = await operator(t, 'POST', '/integrators', {
      name: 'Homely',
      fees: CARD_FEE,
      business_lets: false,
    });
    assert.equal(declaredFalse.status, 400);
    assert.deepEqual(declaredFalse.body, { fees: [FEES_REFUSED], business_lets: [BUSINESS_LETS_REQUIRED] });
    assert.equal(await integratorCount(t), before);
  });

  it('accepts a fee with business_lets true and shows both in the operator and integrator views', async () => {
    const created = await operator(t, 'POST', '/integrators', {
      name: 'Staff Housing Ltd',
      fees: CARD_FEE,
      business_lets: true,
    });
    assertCreated(created);
    assert.equal(created.body.environment, 'production');
    assert.equal(created.body.business_lets, true);
    assert.deepEqual(created.body.fees, CARD_FEE_VIEW);

    const shown = await operator(t, 'GET', `/integrators/${created.body.integrator_id}`);
    assert.equal(shown.body.business_lets, true);
    assert.deepEqual(shown.body.fees, CARD_FEE_VIEW);
    const listed = await operator(t, 'GET', '/integrators');
    const inList = listed.body.data.find(
      (i: { integrator_id: string }) => i.integrator_id === created.body.integrator_id,
    );
    assert.equal(inList.business_lets, true);

    const own = await send(t, {
      method: 'GET',
      url: '/api/third-party/integrator/',
      headers: tokenHeader(created.body.server_token),
    });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.business_lets, true);
    assert.deepEqual(own.body.fees, CARD_FEE_VIEW);
  });

  it('refuses turning business_lets off while a fee is set, and changes nothing', async () => {
    const created = await operator(t, 'POST', '/integrators', {
      name: 'Office Lets Ltd',
      fees: CARD_FEE,
      business_lets: true,
    });
    assertCreated(created);
    const id = created.body.integrator_id;
    const before = await operator(t, 'GET', `/integrators/${id}`);
    t.clock.advance(1000);

    const refused = await operator(t, 'PATCH', `/integrators/${id}`, {
      business_lets: false,
      name: 'Renamed',
      rate_limit_per_second: 7,
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.deepEqual(refused.body, { business_lets: [BUSINESS_LETS_REQUIRED] });
    const keptFee = await operator(t, 'PATCH', `/integrators/${id}`, {
      business_lets: false,
      fees: { card: { percent: '1.45', fixed: '0' } },
    });
    assert.equal(keptFee.status, 400);
    assert.deepEqual(keptFee.body, { fees: [FEES_REFUSED], business_lets: [BUSINESS_LETS_REQUIRED] });
    assert.deepEqual((await operator(t, 'GET', `/integrators/${id}`)).body, before.body);

    // The settings after the change decide: fees to 0 and the declaration withdrawn in one request is allowed.
    const withdrawn = await operator(t, 'PATCH', `/integrators/${id}`, {
      business_lets: false,
      fees: { card: { percent: '0', fixed: '0' } },
    });
    assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.body));
    assert.equal(withdrawn.body.business_lets, false);
    assert.deepEqual(withdrawn.body.fees, { card: { percent: '0.00', fixed: '0.00' } });
  });

  it('accepts zero fees without business_lets, refuses raising one, and accepts it with the declaration', async () => {
    const created = await operator(t, 'POST', '/integrators', {
      name: 'Homely',
      fees: { card: { percent: '0', fixed: '0.00' }, apple_pay: { percent: '0.00', fixed: '0' } },
    });
    assertCreated(created);
    assert.equal(created.body.business_lets, false);
    const id = created.body.integrator_id;
    const before = await operator(t, 'GET', `/integrators/${id}`);
    t.clock.advance(1000);

    const refused = await operator(t, 'PATCH', `/integrators/${id}`, { fees: CARD_FEE, name: 'Renamed' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { fees: [FEES_REFUSED] });
    assert.deepEqual((await operator(t, 'GET', `/integrators/${id}`)).body, before.body);

    const declared = await operator(t, 'PATCH', `/integrators/${id}`, {
      fees: CARD_FEE,
      business_lets: true,
    });
    assert.equal(declared.status, 200, JSON.stringify(declared.body));
    assert.equal(declared.body.business_lets, true);
    assert.deepEqual(declared.body.fees, CARD_FEE_VIEW);
  });

  it('a fee stored without the declaration is refused on the next change until it is fixed', async () => {
    const created = await operator(t, 'POST', '/integrators', { name: 'Older platform' });
    assertCreated(created);
    const id = created.body.integrator_id;
    // As an integrator set up before business_lets existed: a fee, and the column's default.
    await t.db.query(
      `UPDATE integrators SET fees = '{"card": {"percent_bps": 145, "fixed_pence": 20}}' WHERE id = $1`,
      [id],
    );

    const refused = await operator(t, 'PATCH', `/integrators/${id}`, { name: 'Renamed' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { fees: [FEES_REFUSED] });
    const fixed = await operator(t, 'PATCH', `/integrators/${id}`, { name: 'Renamed', fees: {} });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.deepEqual(fixed.body.fees, {});
    assert.equal(fixed.body.name, 'Renamed');
  });

  it('the CLI records the declaration with --business-lets and withdraws it with --no-business-lets', async () => {
    const env = await operatorCliEnv(t);
    const refused = await runCli(
      ['integrator', 'create', '--name', 'Homely', '--fee', 'card=1.4%+0.20'],
      env,
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /fees: Fees charged to tenants are refused in production/);

    const created = await runCli(
      ['integrator', 'create', '--name', 'Staff Housing Ltd', '--fee', 'card=1.4%+0.20', '--business-lets'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /business_lets\s+yes/);
    const id = /integrator_id\s+(int_\w+)/.exec(created.stdout)![1]!;

    const withdrawn = await runCli(['integrator', 'update', id, '--no-business-lets', '--json'], env);
    assert.equal(withdrawn.code, 2);
    assert.match(
      withdrawn.stderr,
      /business_lets: business_lets can be false in production only while every fee is 0/,
    );
    const noFees = await runCli(
      ['integrator', 'update', id, '--no-business-lets', '--fee', 'card=0%', '--json'],
      env,
    );
    assert.equal(noFees.code, 0, noFees.stderr);
    assert.equal(JSON.parse(noFees.stdout).business_lets, false);
  });
});

describe('tenant fees in the sandbox', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('keeps fees without business_lets, for testing', async () => {
    const created = await operator(t, 'POST', '/integrators', { name: 'Homely', fees: CARD_FEE });
    assertCreated(created);
    assert.equal(created.body.environment, 'sandbox');
    assert.equal(created.body.business_lets, false);
    assert.deepEqual(created.body.fees, CARD_FEE_VIEW);

    const updated = await operator(t, 'PATCH', `/integrators/${created.body.integrator_id}`, {
      fees: { card: { percent: '2', fixed: '0.30' } },
      business_lets: false,
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(updated.body.fees, { card: { percent: '2.00', fixed: '0.30' } });

    const own = await send(t, {
      method: 'GET',
      url: '/api/third-party/integrator/',
      headers: tokenHeader(created.body.server_token),
    });
    assert.equal(own.body.business_lets, false);
  });

  it('describes business_lets in the Operator API reference, on the body and the answer', async () => {
    const document = (await t.app.inject('/api/operator/openapi.json')).json();
    const create = document.paths['/api/operator/integrators'].post;
    const update = document.paths['/api/operator/integrators/{integrator_id}'].patch;
    for (const schema of [
      create.requestBody.content['application/json'].schema,
      update.requestBody.content['application/json'].schema,
      update.responses['200'].content['application/json'].schema,
    ]) {
      assert.equal(schema.properties.business_lets.type, 'boolean');
      assert.match(schema.properties.business_lets.description, /tenants are businesses, not consumers/);
      assert.match(
        schema.properties.business_lets.description,
        /UK law bans surcharges on consumer card payments/,
      );
    }
  });
});
