import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError, integrationApi, send, UNLIMITED } from '../../support/api-client.ts';
import { OPERATOR_TOKEN, runCli, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, count, newTenant, PAN, walletToken } from '../../support/payment-client.ts';

const ALL_ON = { apms: true, wallets: true, recurring: true, savedCards: true };
const NOT_ENABLED = { method: ['This payment method is not enabled for this integration.'] };

describe('per-integrator features (apms, wallets, recurring, savedCards): operator setting, client session, engine', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  function operator(method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown): Promise<Answer> {
    return send(t, {
      method,
      url: `/api/operator${url}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  it('absent means enabled; create and PATCH set features one by one; every integrator view shows all four', async () => {
    const plain = await operator('POST', '/integrators', { name: 'Plain' });
    assert.equal(plain.status, 201);
    assert.deepEqual(plain.body.features, ALL_ON);

    const created = await operator('POST', '/integrators', {
      name: 'No APMs',
      features: { apms: false, savedCards: true },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.features, { ...ALL_ON, apms: false });
    const id = created.body.integrator_id;

    const patched = await operator('PATCH', `/integrators/${id}`, { features: { wallets: false } });
    assert.equal(patched.status, 200);
    assert.deepEqual(
      patched.body.features,
      { ...ALL_ON, apms: false, wallets: false },
      'apms left as it was',
    );
    const unchanged = await operator('PATCH', `/integrators/${id}`, { name: 'Renamed' });
    assert.deepEqual(unchanged.body.features, patched.body.features, 'a PATCH without features keeps them');
    const reenabled = await operator('PATCH', `/integrators/${id}`, { features: { apms: true } });
    assert.deepEqual(reenabled.body.features, { ...ALL_ON, wallets: false });

    assert.deepEqual((await operator('GET', `/integrators/${id}`)).body.features, {
      ...ALL_ON,
      wallets: false,
    });
    const listed = (await operator('GET', '/integrators')).body.data.find(
      (i: { integrator_id: string }) => i.integrator_id === id,
    );
    assert.deepEqual(listed.features, { ...ALL_ON, wallets: false });
    const own = await send(t, {
      method: 'GET',
      url: '/api/third-party/integrator/',
      headers: tokenHeader(created.body.server_token),
    });
    assert.equal(own.status, 200);
    assert.deepEqual(own.body.features, { ...ALL_ON, wallets: false });
  });

  it('refuses unknown features and non-booleans with field errors', async () => {
    const unknown = await operator('POST', '/integrators', { name: 'x', features: { schedules: false } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body, { features: ['Unknown field "schedules".'] });
    const notBoolean = await operator('POST', '/integrators', { name: 'x', features: { apms: 'off' } });
    assert.deepEqual(notBoolean.body, {
      'features.apms': ['Must be a valid boolean: true or false, without quotes.'],
    });
    const notObject = await operator('PATCH', '/integrators/int_nope', { features: [] });
    assert.deepEqual(notObject.body, { features: ['Expected an object.'] });
  });

  it('the client session shows the features; APMs, wallets and saved cards are refused when off', async () => {
    const integrator = await t.createIntegrator({
      ...UNLIMITED,
      features: { apms: false, wallets: false, savedCards: false, recurring: false },
    });
    const api = integrationApi(t, integrator);
    const tenant = await newTenant(t, api);
    const session = await tenant.client.call('GET', '/session');
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.features, {
      apms: false,
      wallets: false,
      recurring: false,
      savedCards: false,
    });

    for (const method of ['alipay', 'wechat_pay', 'unionpay']) {
      const refused = await tenant.client.pay({ method });
      assert.equal(refused.status, 400, method);
      assert.deepEqual(refused.body, NOT_ENABLED);
    }
    for (const wallet of ['apple_pay', 'google_pay'] as const) {
      const refused = await tenant.client.pay({ method: wallet, wallet_token: await walletToken(t, wallet) });
      assert.deepEqual(refused.body, NOT_ENABLED, wallet);
    }
    for (const [method, path] of [
      ['GET', '/cards'],
      ['GET', '/cards/card_x'],
      ['DELETE', '/cards/card_x'],
      ['POST', '/cards/card_x/default'],
    ] as const) {
      assertError(
        await tenant.client.call(method, path),
        409,
        'feature_disabled',
        /^Saved cards are not enabled for this integration\.$/,
      );
    }
    assertError(
      await tenant.client.saveCard(await cardToken(t, PAN.visa)),
      409,
      'feature_disabled',
      /Saved cards/,
    );
    assert.equal(await count(t, 'saved_cards'), 0);
    assertError(await tenant.client.pay({ saved_card_id: 'card_x' }), 409, 'feature_disabled');
    assert.equal(await count(t, 'payments'), 0, 'nothing was attempted');

    // A new card still pays.
    const card = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(card.status, 201, JSON.stringify(card.body));
    assert.equal(card.body.status, 'succeeded');
  });

  it('turned on again, the same integrator takes APMs, wallets and saved cards; other integrators are unaffected', async () => {
    const integrator = await t.createIntegrator({
      ...UNLIMITED,
      features: { apms: false, savedCards: false },
    });
    const api = integrationApi(t, integrator);
    const other = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other' }));
    const otherTenant = await newTenant(t, other);
    assert.equal((await otherTenant.client.pay({ method: 'alipay' })).body.status, 'requires_action');
    assert.equal((await otherTenant.client.cards()).status, 200);

    const tenant = await newTenant(t, api);
    const wallet = await tenant.client.pay({
      method: 'apple_pay',
      wallet_token: await walletToken(t, 'apple_pay'),
    });
    assert.equal(wallet.body.status, 'succeeded', 'wallets were never turned off');
    await operator('PATCH', `/integrators/${integrator.id}`, { features: { apms: true, savedCards: true } });
    const client = await tenant.login();
    assert.deepEqual((await client.call('GET', '/session')).body.features, ALL_ON);
    assert.equal((await client.pay({ method: 'alipay' })).body.status, 'requires_action');
    const saved = await (await tenant.login()).saveCard(await cardToken(t, PAN.visa));
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
  });
});

describe('rentpay integrator --feature', () => {
  let t: TestApp;
  let env: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    env = {
      RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
      RENTPAY_URL: await t.app.listen({ port: 0, host: '127.0.0.1' }),
    };
  });
  after(() => t.close());

  it('create and update take --feature NAME=on|off (repeatable); show prints the features', async () => {
    const created = await runCli(
      [
        'integrator',
        'create',
        '--name',
        'Flags',
        '--feature',
        'apms=off',
        '--feature',
        'savedCards=on',
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout);
    assert.deepEqual(body.features, { ...ALL_ON, apms: false });

    const updated = await runCli(
      ['integrator', 'update', body.integrator_id, '--feature', 'wallets=off'],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stdout, /\nfeatures\s+apms off, wallets off, recurring on, savedCards on\n/);

    const shown = await runCli(['integrator', 'show', body.integrator_id], env);
    assert.match(shown.stdout, /\nfeatures\s+apms off, wallets off, recurring on, savedCards on\n/);

    for (const bad of ['apms', 'apms=no', 'cash=off']) {
      const refused = await runCli(['integrator', 'update', body.integrator_id, '--feature', bad], env);
      assert.equal(refused.code, 2);
      assert.equal(
        refused.stderr,
        `rentpay: --feature "${bad}": write NAME=on or NAME=off, NAME one of apms, wallets, recurring, savedCards\n`,
      );
    }
    const help = await runCli(['integrator', 'create', '--help']);
    assert.ok(help.stdout.includes('--feature'));
  });
});
