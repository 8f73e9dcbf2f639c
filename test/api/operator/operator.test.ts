import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createTestDatabase,
  OPERATOR_TOKEN,
  startTestApp,
  type TestApp,
  tokenHeader,
} from '../../support/helpers.ts';

const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };

describe('Operator API', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  describe('security', () => {
    const routes = [
      ['GET', '/api/operator/integrators'],
      ['POST', '/api/operator/integrators'],
      ['GET', '/api/operator/integrators/int_x'],
      ['PATCH', '/api/operator/integrators/int_x'],
    ] as const;
    for (const [method, url] of routes) {
      it(`${method} ${url} refuses a missing, wrong or non-Bearer operator token`, async () => {
        for (const headers of [
          {},
          { authorization: 'Bearer wrong-token-wrong-token-wrong' },
          { authorization: `Token ${OPERATOR_TOKEN}` },
          { authorization: `Bearer ${OPERATOR_TOKEN}x` },
        ]) {
          const response = await t.app.inject({ method, url, headers, payload: { name: 'x' } });
          assert.equal(response.statusCode, 401, JSON.stringify(headers));
          assert.equal(response.json().error, 'unauthorized');
          assert.equal(response.headers['www-authenticate'], 'Bearer');
        }
      });
    }

    it('refuses a server token', async () => {
      const { token } = await t.createIntegrator();
      for (const authorization of [`Bearer ${token}`, `Token ${token}`]) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/api/operator/integrators',
          headers: { authorization },
        });
        assert.equal(response.statusCode, 401);
      }
    });

    it('nothing is created by a refused request', async () => {
      const before = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM integrators'))[0]?.n;
      await t.app.inject({ method: 'POST', url: '/api/operator/integrators', payload: { name: 'sneaky' } });
      const after = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM integrators'))[0]?.n;
      assert.equal(after, before);
    });
  });

  describe('integrators', () => {
    it('create returns the settings, a server token for this environment and a webhook secret', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/operator/integrators',
        headers: operator,
        payload: {
          name: '  Acme Lettings ',
          webhook_url: 'https://hooks.acme.example/rentpay',
          allowed_origins: ['https://acme.example', 'http://localhost:3000'],
          fees: { card: { percent: '1.4', fixed: '0.20' }, alipay: { percent: '2', fixed: '0' } },
          rate_limit_per_second: 50,
        },
      });
      assert.equal(response.statusCode, 201);
      const body = response.json();
      assert.match(body.integrator_id, /^int_[A-Za-z0-9]{22}$/);
      assert.match(body.server_token, /^rp_sandbox_[A-Za-z0-9]{40}$/);
      assert.match(body.webhook_secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.equal(Buffer.from(body.webhook_secret.slice(6), 'base64').length, 24);
      assert.equal(body.name, 'Acme Lettings', 'surrounding spaces trimmed');
      assert.equal(body.environment, 'sandbox');
      assert.equal(body.webhook_url, 'https://hooks.acme.example/rentpay');
      assert.deepEqual(body.allowed_origins, ['https://acme.example', 'http://localhost:3000']);
      assert.deepEqual(body.fees, {
        card: { percent: '1.40', fixed: '0.20' },
        alipay: { percent: '2.00', fixed: '0.00' },
      });
      assert.equal(body.rate_limit_per_second, 50);
      assert.equal(body.rate_limit_burst, 200);
      assert.equal(body.created_at, t.clock.now().toISOString());
      const whoami = await t.app.inject({
        method: 'GET',
        url: '/api/third-party/integrator/',
        headers: tokenHeader(body.server_token),
      });
      assert.equal(whoami.statusCode, 200);
      assert.equal(whoami.json().integrator_id, body.integrator_id);
    });

    it('update changes only what is sent; null removes the webhook URL', async () => {
      const { id } = await t.createIntegrator({
        name: 'Before',
        webhook_url: 'https://a.example/h',
        rate_limit_per_second: 10,
      });
      t.clock.advance(1000);
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/api/operator/integrators/${id}`,
        headers: operator,
        payload: { name: 'After', allowed_origins: ['https://b.example'] },
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.name, 'After');
      assert.equal(body.webhook_url, 'https://a.example/h');
      assert.deepEqual(body.allowed_origins, ['https://b.example']);
      assert.equal(body.rate_limit_per_second, 10);
      assert.equal(body.updated_at, t.clock.now().toISOString());
      assert.notEqual(body.created_at, body.updated_at);
      const cleared = await t.app.inject({
        method: 'PATCH',
        url: `/api/operator/integrators/${id}`,
        headers: operator,
        payload: { webhook_url: null },
      });
      assert.equal(cleared.json().webhook_url, null);
      assert.equal(cleared.json().name, 'After');
    });

    it('list and show', async () => {
      const { id } = await t.createIntegrator({ name: 'Listed' });
      const list = await t.app.inject({ method: 'GET', url: '/api/operator/integrators', headers: operator });
      assert.equal(list.statusCode, 200);
      const found = list.json().data.find((i: { integrator_id: string }) => i.integrator_id === id);
      assert.equal(found.name, 'Listed');
      assert.equal(found.webhook_secret, undefined, 'secrets are not listed');
      const show = await t.app.inject({
        method: 'GET',
        url: `/api/operator/integrators/${id}`,
        headers: operator,
      });
      assert.equal(show.json().integrator_id, id);
    });

    it('unknown integrator: 404 in the error shape', async () => {
      for (const method of ['GET', 'PATCH'] as const) {
        const response = await t.app.inject({
          method,
          url: '/api/operator/integrators/int_nope',
          headers: operator,
          payload: { name: 'x' },
        });
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { error: 'not_found', detail: 'No integrator int_nope.' });
      }
    });

    const invalid: [string, Record<string, unknown>, Record<string, string[]>][] = [
      ['missing name', {}, { name: ['This field is required.'] }],
      ['blank name', { name: '' }, { name: ['This field may not be blank.'] }],
      ['name of spaces', { name: '   ' }, { name: ['This field may not be blank.'] }],
      [
        'name too long',
        { name: 'x'.repeat(201) },
        { name: ['Ensure this field has no more than 200 characters.'] },
      ],
      ['webhook not a URL', { name: 'a', webhook_url: 'nope' }, { webhook_url: ['Enter a valid URL.'] }],
      [
        'webhook not http',
        { name: 'a', webhook_url: 'ftp://x.example/' },
        { webhook_url: ['Enter an http or https URL.'] },
      ],
      [
        'origin with a path',
        { name: 'a', allowed_origins: ['https://ok.example', 'https://x.example/path'] },
        {
          'allowed_origins.1': [
            'Enter an origin: scheme, host and optional port, e.g. https://platform.example.',
          ],
        },
      ],
      [
        'unknown fee method',
        { name: 'a', fees: { cash: { percent: '1', fixed: '0' } } },
        { fees: ['Unknown field "cash".'] },
      ],
      [
        'fee percent over 100',
        { name: 'a', fees: { card: { percent: '101', fixed: '0' } } },
        { 'fees.card.percent': ['Enter a percentage from 0 to 100.'] },
      ],
      [
        'fee fixed not decimal',
        { name: 'a', fees: { card: { percent: '1', fixed: '0.201' } } },
        { 'fees.card.fixed': ['Enter a valid value.'] },
      ],
      [
        'rate limit zero and wrong type',
        { name: 'a', rate_limit_per_second: 0, rate_limit_burst: '5' },
        {
          rate_limit_per_second: ['Ensure this value is greater than or equal to 1.'],
          rate_limit_burst: ['A valid integer is required: a whole number without quotes, e.g. 5.'],
        },
      ],
    ];
    for (const [name, payload, errors] of invalid) {
      it(`create refuses ${name} with dotted field errors and writes nothing`, async () => {
        const count = async () =>
          (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM integrators'))[0]?.n;
        const before = await count();
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/operator/integrators',
          headers: operator,
          payload,
        });
        assert.equal(response.statusCode, 400);
        assert.deepEqual(response.json(), errors);
        assert.equal(await count(), before);
      });
    }
  });
});

describe('operator token bootstrap', () => {
  it('without OPERATOR_TOKEN one is generated once and works; a configured token later retires it for good', async () => {
    const { bootstrapDeployment } = await import('../../../src/bootstrap.ts');
    const database = await createTestDatabase();
    const db = await database.open();
    try {
      const first = await startTestApp({ database, db, config: { operatorToken: undefined } });
      const secrets = await bootstrapDeployment(first.app);
      assert.match(secrets.operatorToken ?? '', /^rpo_[A-Za-z0-9]{40}$/);
      assert.ok(secrets.demo, 'sandbox gets a demo integrator');
      assert.deepEqual(await bootstrapDeployment(first.app), {}, 'nothing is generated or printed twice');
      const list = (token: string, app = first.app) =>
        app.inject({
          method: 'GET',
          url: '/api/operator/integrators',
          headers: { authorization: `Bearer ${token}` },
        });
      assert.equal((await list(secrets.operatorToken!)).statusCode, 200);
      const stored = JSON.stringify(await db.query('SELECT * FROM operator_credentials'));
      assert.ok(!stored.includes(secrets.operatorToken!), 'stored hashed only');
      await first.close();

      const configured = await startTestApp({ database, db });
      await bootstrapDeployment(configured.app);
      assert.equal((await list(secrets.operatorToken!, configured.app)).statusCode, 401);
      await configured.close();

      const unsetAgain = await startTestApp({ database, db, config: { operatorToken: undefined } });
      const again = await bootstrapDeployment(unsetAgain.app);
      assert.equal(
        (await list(secrets.operatorToken!, unsetAgain.app)).statusCode,
        401,
        'the old one stays dead',
      );
      assert.ok(again.operatorToken && again.operatorToken !== secrets.operatorToken);
      assert.equal(again.demo, undefined, 'the demo integrator is created only once');
      await unsetAgain.close();
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
