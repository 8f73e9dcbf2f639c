/**
 * The guards every Integration API operation shares, checked on each operation its OpenAPI document lists (so a new
 * route is covered the day it is added): no or an unknown server token is 401 unauthorized with a challenge; a
 * suspended integrator's token is 403 integrator_suspended; past its rate limit an integrator gets 429 rate_limited
 * with Retry-After. Each is answered before the request's body or parameters are looked at, and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

interface Operation {
  method: string;
  url: string;
  name: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('every Integration API operation: 401, 403 and 429', () => {
  let t: TestApp;
  let operations: Operation[];

  before(async () => {
    t = await startTestApp();
    const document = (await t.app.inject({ method: 'GET', url: '/api/third-party/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          // Path parameters: any value will do, the guards answer before the parameters are read.
          url: `${path.startsWith('/api/') ? '' : '/api/third-party'}${path.replace(/\{[^}]+\}/g, 'x_0')}`,
          name: `${operation.operationId ?? method} ${path}`,
        })),
    );
  });
  after(() => t?.close());

  // Each case from an address of its own: failed authentications from one address are limited too.
  const send = (operation: Operation, headers: Record<string, string>, remoteAddress: string) =>
    t.app.inject({
      method: operation.method as 'GET',
      url: operation.url,
      headers,
      remoteAddress,
      ...(operation.method === 'GET' || operation.method === 'DELETE' ? {} : { payload: {} }),
    });

  it('finds the operations', () => {
    assert.ok(operations.length >= 20, `only ${operations.length} operations`);
    assert.ok(operations.some((operation) => operation.name.startsWith('userLogin ')));
  });

  it('401 unauthorized without a server token, and with an unknown one', async () => {
    for (const [i, operation] of operations.entries()) {
      for (const headers of [{}, tokenHeader('rp_sandbox_NotAToken000000000000000000000000000000')]) {
        const response = await send(operation, headers, `198.51.100.${i + 1}`);
        assert.equal(response.statusCode, 401, `${operation.name}: ${response.body}`);
        assert.equal(response.json().error, 'unauthorized', operation.name);
        assert.ok(response.headers['www-authenticate'], `${operation.name}: a challenge`);
      }
    }
  });

  it('403 integrator_suspended with a suspended integrator’s token', async () => {
    const { id, token } = await t.createIntegrator({ name: 'Suspended platform' });
    const suspended = await t.app.inject({
      method: 'POST',
      url: `/api/operator/integrators/${id}/suspend`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(suspended.statusCode, 200, suspended.body);
    for (const operation of operations) {
      const response = await send(operation, tokenHeader(token), '192.0.2.10');
      assert.equal(response.statusCode, 403, `${operation.name}: ${response.body}`);
      assert.equal(response.json().error, 'integrator_suspended', operation.name);
    }
  });

  it('429 rate_limited with Retry-After once the integrator’s burst is spent', async () => {
    // A minute's window: the burst is spent and every operation asked well within it.
    const { token } = await t.createIntegrator({ rate_limit_per_second: 1, rate_limit_burst: 60 });
    for (let i = 0; i < 60; i++) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/third-party/integrator/',
        headers: tokenHeader(token),
        remoteAddress: '192.0.2.20',
      });
      assert.equal(response.statusCode, 200, response.body);
    }
    for (const operation of operations) {
      const response = await send(operation, tokenHeader(token), '192.0.2.20');
      assert.equal(response.statusCode, 429, `${operation.name}: ${response.body}`);
      assert.equal(response.json().error, 'rate_limited', operation.name);
      assert.ok(Number(response.headers['retry-after']) >= 1, `${operation.name}: Retry-After`);
    }
  });
});
