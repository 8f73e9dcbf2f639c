/**
 * The guard every Operator API operation and every Client API operation shares, checked on each operation their
 * OpenAPI documents list (so a new route is covered the day it is added): no credential, or one that is not
 * valid, is 401 with a Bearer challenge (unauthorized; on the Client API an unknown session token is
 * session_expired), answered before the body or parameters are read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

async function operationsOf(t: TestApp, prefix: string) {
  const document = (await t.app.inject({ method: 'GET', url: `${prefix}/openapi.json` })).json() as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase() as 'GET',
        url: `${path.startsWith('/api/') ? '' : prefix}${path.replace(/\{[^}]+\}/g, 'x_0')}`,
        name: `${operation.operationId ?? method} ${path}`,
      })),
  );
}

describe('every Operator and Client API operation: 401 without a valid credential', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t?.close());

  for (const [api, prefix, wrong] of [
    ['Operator API', '/api/operator', 'Bearer rpo_not_the_operator_token_000000000000'],
    ['Client API', '/api/client', 'Bearer rp_ust_NotASessionToken00000000000000000'],
  ] as const) {
    it(`${api}: each operation answers 401 unauthorized with a Bearer challenge`, async () => {
      const operations = await operationsOf(t, prefix);
      assert.ok(operations.length >= 5, `only ${operations.length} operations`);
      for (const [i, operation] of operations.entries()) {
        for (const headers of [{}, { authorization: wrong }]) {
          const response = await t.app.inject({
            ...operation,
            headers,
            // An address per operation: failed authentications from one address are limited too.
            remoteAddress: `${api === 'Client API' ? '203.0.113' : '198.51.100'}.${i + 1}`,
            ...(operation.method === 'GET' || operation.method === 'DELETE' ? {} : { payload: {} }),
          });
          assert.equal(response.statusCode, 401, `${operation.name}: ${response.body}`);
          // The Client API says an unknown session token has expired, so the page offers to start again.
          const expected =
            api === 'Client API' && 'authorization' in headers ? 'session_expired' : 'unauthorized';
          assert.equal(response.json().error, expected, operation.name);
          assert.match(String(response.headers['www-authenticate']), /^Bearer/, operation.name);
        }
      }
    });
  }
});
