import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { OpenAPIV3_1 } from 'openapi-types';
import { IdempotencyKeyInput, SCHEDULER_KEY_MESSAGE } from '../../../src/client/schemas.ts';
import { fieldErrorsFromAjv } from '../../../src/platform/http/errors.ts';
import { API_VERSION } from '../../../src/platform/http/openapi.ts';
import { IDEMPOTENCY_KEY_MESSAGE } from '../../../src/platform/http/schemas.ts';
import { compileBodyValidator } from '../../../src/platform/http/validation.ts';
import { AmountInput } from '../../../src/sessions/client-schemas.ts';
import { AMOUNT_FORMAT_MESSAGE, parsePence } from '../../../src/shared/money.ts';
import { integrationApi, UNLIMITED } from '../../support/api-client.ts';
import { userBody } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from '../../support/helpers.ts';

/**
 * The three API documents, each fetched over HTTP from a running app: valid OpenAPI 3.1, listing exactly the routes
 * the app has under its prefix (read from the router, so a route added without a schema or hidden from its document
 * fails here), and for the Client and Operator APIs an example of every operation that passes its route's schema.
 */

const APIS = [
  { prefix: '/api/third-party', title: 'rentpay Integration API', scheme: 'ServerToken' },
  { prefix: '/api/client', title: 'rentpay Client API', scheme: 'UserSessionToken' },
  { prefix: '/api/operator', title: 'rentpay Operator API', scheme: 'OperatorToken' },
] as const;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Every "METHOD /path" the router has, from printRoutes: a tree whose lines each add a path segment to their parent's
 * (`├── /payments (GET, HEAD)`, then `│   └── /:payment_id (GET)`). HEAD routes are Fastify's own copies of the GETs.
 */
function registeredRoutes(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[2];
    stack.push(path);
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) {
      if (method !== 'HEAD') routes.add(`${method} ${path}`);
    }
  }
  return routes;
}

function operations(document: OpenAPIV3_1.Document): [string, string, OpenAPIV3_1.OperationObject][] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item?.[method]).map(
      (method) => [method, path, item![method]!] as [string, string, OpenAPIV3_1.OperationObject],
    ),
  );
}

type ExampleHolder = { example?: unknown; examples?: Record<string, unknown> } | undefined;

/** The examples of a parameter or of a JSON body: `example`, or the values of `examples`. */
function examplesOf(holder: ExampleHolder): unknown[] {
  if (holder === undefined) return [];
  if (holder.example !== undefined) return [holder.example];
  return Object.values(holder.examples ?? {}).map((example) => (example as { value?: unknown }).value);
}

const exampleOf = (holder: ExampleHolder): unknown => examplesOf(holder)[0];

describe('OpenAPI documents of the three APIs', () => {
  let t: TestApp;
  let base: string;
  const documents = new Map<string, OpenAPIV3_1.Document>();
  const auth: Record<string, string> = {};
  let requests = 0;

  before(async () => {
    t = await startTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const integrator = await t.createIntegrator(UNLIMITED);
    const api = integrationApi(t, integrator);
    await api.onboardOk(userBody({ user_id: 7001, email: 'openapi@example.com' }));
    const { token } = await api.loginOk('openapi@example.com');
    auth['/api/third-party'] = `Token ${integrator.token}`;
    auth['/api/client'] = `Bearer ${token}`;
    auth['/api/operator'] = `Bearer ${OPERATOR_TOKEN}`;
    // Without any Authorization header: the documents are public.
    for (const { prefix } of APIS) {
      const response = await fetch(`${base}${prefix}/openapi.json`);
      assert.equal(response.status, 200, prefix);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      documents.set(prefix, (await response.json()) as OpenAPIV3_1.Document);
    }
  });
  after(() => t.close());

  /** Sends one example request with valid auth: any answer but a refusal by the route's schema (or a 401, a 5xx). */
  async function assertPassesSchema(name: string, url: URL, method: string, prefix: string, body: unknown) {
    const requestId = `openapi-example-${++requests}`;
    const response = await fetch(url, {
      method: method.toUpperCase(),
      headers: {
        authorization: auth[prefix]!,
        'x-request-id': requestId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.notEqual(response.status, 401, `${name}: ${text}`);
    assert.ok(response.status < 500, `${name}: ${response.status} ${text}`);
    // A 400 may come from the handler (e.g. an example card token this sandbox never issued), never the schema: the
    // app logs each request its route's schema refused.
    const refused = t.logs.lines
      .map((line) => JSON.parse(line) as { reqId?: string; msg?: string })
      .find((line) => line.reqId === requestId && line.msg === 'request refused by its schema');
    assert.equal(refused, undefined, `${name}: the example fails the route's schema: ${text}`);
    if (response.status === 400) assert.doesNotMatch(text, /"detail":"Invalid (params|querystring|headers)/);
  }

  for (const { prefix, title, scheme } of APIS) {
    describe(title, () => {
      it('is a valid OpenAPI 3.1 document with its title, version, server and security scheme', async () => {
        const document = documents.get(prefix)!;
        const validator = new Validator();
        const result = await validator.validate(
          structuredClone(document) as unknown as Record<string, unknown>,
        );
        assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
        assert.equal(validator.version, '3.1');
        assert.equal(document.openapi, '3.1.0');
        assert.equal(document.info.title, title);
        assert.equal(document.info.version, API_VERSION);
        assert.ok((document.info.description ?? '').length > 100);
        assert.deepEqual(document.servers, [{ url: t.config.publicUrl }]);
        assert.deepEqual(document.security, [{ [scheme]: [] }]);
        assert.ok(document.components?.securitySchemes?.[scheme]);
      });

      it('lists exactly the routes the app has under its prefix (but the document itself)', () => {
        const inDocument = operations(documents.get(prefix)!).map(
          ([method, path]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
        );
        assert.equal(new Set(inDocument).size, inDocument.length);
        const registered = [...registeredRoutes(t.app.printRoutes({ commonPrefix: false }))].filter(
          (route) => route.split(' ')[1]!.startsWith(`${prefix}/`) && route !== `GET ${prefix}/openapi.json`,
        );
        assert.ok(registered.length > 10, `only ${registered.length} routes found under ${prefix}`);
        assert.deepEqual(inDocument.sort(), registered.sort());
      });
    });
  }

  for (const { prefix, title } of APIS.filter((api) => api.prefix !== '/api/third-party')) {
    describe(`${title}: every operation`, () => {
      it('has an operationId (unique), a summary, a description, tags from the document and error answers', () => {
        const document = documents.get(prefix)!;
        const tags = new Set((document.tags ?? []).map((tag) => tag.name));
        const ids = new Set<string>();
        for (const [method, path, operation] of operations(document)) {
          const name = `${method.toUpperCase()} ${path}`;
          assert.ok(operation.operationId, name);
          assert.ok(!ids.has(operation.operationId), `${name}: operationId ${operation.operationId} twice`);
          ids.add(operation.operationId);
          assert.ok(operation.summary, name);
          assert.ok(operation.description, name);
          assert.ok(operation.tags?.length, name);
          for (const tag of operation.tags ?? [])
            assert.ok(tags.has(tag), `${name}: tag ${tag} not in the document`);
          const responses = (operation.responses ?? {}) as Record<string, OpenAPIV3_1.ResponseObject>;
          const statuses = Object.keys(responses);
          assert.ok(
            statuses.some((status) => /^2\d\d$/.test(status)),
            `${name}: no 2xx answer`,
          );
          assert.ok(statuses.includes('401'), `${name}: no 401 answer`);
          if (operation.requestBody || operation.parameters?.length) {
            assert.ok(statuses.includes('400'), `${name}: takes input but has no 400 answer`);
          }
          for (const status of statuses.filter((s) => s.startsWith('4'))) {
            const content = responses[status]?.content;
            assert.ok(content?.['application/json']?.schema, `${name}: ${status} without a schema`);
          }
        }
      });

      it('has an example request (one per example body) that passes its route’s schema', async () => {
        for (const [method, path, operation] of operations(documents.get(prefix)!)) {
          const name = `${method.toUpperCase()} ${path}`;
          const parameters = (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
          const url = new URL(
            path.replace(/\{(\w+)\}/g, (_, param: string) => {
              const example = exampleOf(parameters.find((p) => p.in === 'path' && p.name === param));
              assert.equal(typeof example, 'string', `${name}: no example for the path parameter ${param}`);
              return encodeURIComponent(example as string);
            }),
            base,
          );
          for (const parameter of parameters.filter((p) => p.in === 'query')) {
            const example = exampleOf(parameter);
            if (example !== undefined) url.searchParams.set(parameter.name, String(example));
          }
          const requestBody = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
          const bodies = examplesOf(requestBody?.content['application/json']);
          if (requestBody)
            assert.ok(bodies.length > 0 && !bodies.includes(undefined), `${name}: no example body`);
          for (const [index, body] of (requestBody ? bodies : [undefined]).entries()) {
            await assertPassesSchema(`${name} (example ${index + 1})`, url, method, prefix, body);
          }
        }
      });
    });
  }
});

describe('rules the Client API checks in its schemas, with the messages its handlers gave', () => {
  const messages = (schema: object, value: unknown): string[] | undefined => {
    const validate = compileBodyValidator({ type: 'object', properties: { value: schema } });
    return validate({ value }) ? undefined : fieldErrorsFromAjv(validate.errors ?? []).value;
  };

  it('an amount: exactly what parsePence reads, else its message', () => {
    const amount = AmountInput('An amount.', '1.00');
    for (const value of [
      '1',
      '1.5',
      '1.50',
      '0',
      '12345678.99',
      '123456789',
      '1.',
      '.5',
      '1.505',
      '-1',
      '1e3',
      ' 1',
      '',
      '£1',
      '1,200',
    ]) {
      const parsed = parsePence(value) !== undefined;
      assert.deepEqual(messages(amount, value), parsed ? undefined : [AMOUNT_FORMAT_MESSAGE], value);
    }
    assert.deepEqual(messages(amount, 1200), ['Not a valid string: send the value in quotes.']);
  });

  it('an idempotency key: one message, the form first, then the reserved prefix', () => {
    const cases: [string, string[] | undefined][] = [
      ['rent-1', undefined],
      ['x'.repeat(255), undefined],
      ['', [IDEMPOTENCY_KEY_MESSAGE]],
      ['has space', [IDEMPOTENCY_KEY_MESSAGE]],
      ['x'.repeat(256), [IDEMPOTENCY_KEY_MESSAGE]],
      ['sch_ x', [IDEMPOTENCY_KEY_MESSAGE]],
      [`sch_${'x'.repeat(252)}`, [IDEMPOTENCY_KEY_MESSAGE]],
      ['sch_', [SCHEDULER_KEY_MESSAGE]],
      [`sch_${'x'.repeat(251)}`, [SCHEDULER_KEY_MESSAGE]],
      ['sch_abc:2026-03-01:1', [SCHEDULER_KEY_MESSAGE]],
      ['SCH_abc', undefined],
    ];
    for (const [value, expected] of cases)
      assert.deepEqual(messages(IdempotencyKeyInput, value), expected, value);
  });
});
