/** Shared by the onboarding, session and isolation tests: one integrator's view of the Integration API. */
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import type { Queryable } from '../../src/platform/db/db.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from './helpers.ts';

export const ONBOARDING = '/api/third-party/onboarding/';
export const USER_LOGIN = '/api/third-party/user-login/';
export const CLIENT_SESSION = '/api/client/session';
export const sessionPath = (id: string) => `/api/third-party/session/${encodeURIComponent(id)}/`;

/** Rate limits high enough that hundreds of requests in a second never meet a 429. */
export const UNLIMITED = { rate_limit_per_second: 100_000, rate_limit_burst: 1_000_000 };

export const DATE_MESSAGE = 'Date has wrong format or is not a real date. Use YYYY-MM-DD.';
export const EMAIL_TAKEN =
  'A user with this email already exists under another user_id. To update that user, send its user_id; otherwise use another email.';
export const REFERENCE_TAKEN =
  'A tenancy with this payment_reference already exists. To update it, send the same user_id, start_rent_date and address_1.';

export const ONE_USER_CREATED = {
  message: 'Onboarded 1 user: 1 created, 0 updated.',
  created: 1,
  updated: 0,
  ignored: [],
};
export const ONE_USER_UPDATED = {
  message: 'Onboarded 1 user: 0 created, 1 updated.',
  created: 0,
  updated: 1,
  ignored: [],
};

/** A document the service has not fetched yet, as the session query shows it. */
export const PENDING_DOCUMENT = {
  document_id: null,
  state: 'pending',
  sha256: null,
  size_bytes: null,
  failure_reason: null,
};

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer, asserted on field by field
  body: any;
  headers: Record<string, unknown>;
}

/** A request exactly as given, no token, content type or JSON encoding added: for what the Api methods never send. */
export async function send(t: TestApp, request: InjectOptions): Promise<Answer> {
  const response = await t.app.inject(request);
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body, headers: response.headers };
}

/** The status, then the whole body. */
export function assertAnswer(response: Answer, status: number, body: unknown): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.deepEqual(response.body, body);
}

/** Asserts each field of `expected` equals that field of `actual`; `actual`'s other fields are not checked. */
export function assertFields<T extends object>(actual: T, expected: { [K in keyof T]?: unknown }): void {
  for (const field of Object.keys(expected) as (keyof T & string)[]) {
    assert.deepEqual(actual[field], expected[field], field);
  }
}

/** The documented `{"error", "detail"}` error shape, with this status and error code (and a detail matching `detail`). */
export function assertError(response: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.deepEqual(Object.keys(response.body).sort(), ['detail', 'error']);
  assert.equal(response.body.error, code);
  assert.equal(typeof response.body.detail, 'string');
  if (detail) assert.match(response.body.detail, detail);
}

export interface Api {
  integratorId: string;
  serverToken: string;
  /** POSTs any JSON value (a string, null and numbers included) as the body. */
  onboard(body: unknown): Promise<Answer>;
  login(body: unknown): Promise<Answer>;
  session(id: string): Promise<Answer>;
  /** GET /api/client/session with `Authorization: Bearer <token>`. */
  clientSession(token: string): Promise<Answer>;
  /** onboard, asserting a 201. */
  onboardOk(body: unknown): Promise<{ created: number; updated: number }>;
  /** user-login, asserting a 200. */
  loginOk(email: string, paymentReference?: string): Promise<{ token: string; session_id: string }>;
  /** user-login then the session query: what the session query shows about this user now. */
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer
  view(email: string, paymentReference?: string): Promise<any>;
}

export function integrationApi(
  t: TestApp,
  integrator: { id: string; token: string },
  headers: Record<string, string> = {},
): Api {
  const auth = { ...tokenHeader(integrator.token), ...headers };
  const post = (url: string, body: unknown) =>
    send(t, {
      method: 'POST',
      url,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const api: Api = {
    integratorId: integrator.id,
    serverToken: integrator.token,
    onboard: (body) => post(ONBOARDING, body),
    login: (body) => post(USER_LOGIN, body),
    session: (id) => send(t, { method: 'GET', url: sessionPath(id), headers: auth }),
    clientSession: (token) =>
      send(t, { method: 'GET', url: CLIENT_SESSION, headers: { authorization: `Bearer ${token}` } }),
    async onboardOk(body) {
      const response = await api.onboard(body);
      if (response.status !== 201) {
        throw new Error(`onboarding: expected 201, got ${response.status} ${JSON.stringify(response.body)}`);
      }
      return response.body;
    },
    async loginOk(email, paymentReference) {
      const response = await api.login(
        paymentReference === undefined ? { email } : { email, payment_reference: paymentReference },
      );
      if (response.status !== 200) {
        throw new Error(`user-login: expected 200, got ${response.status} ${JSON.stringify(response.body)}`);
      }
      return response.body;
    },
    async view(email, paymentReference) {
      const { session_id } = await api.loginOk(email, paymentReference);
      const response = await api.session(session_id);
      if (response.status !== 200) {
        throw new Error(
          `session query: expected 200, got ${response.status} ${JSON.stringify(response.body)}`,
        );
      }
      return response.body;
    },
  };
  return api;
}

/** A fresh app with one integrator (unlimited rate, then `integrator`'s fields) and that integrator's client. */
export async function startIntegration(
  integrator: Record<string, unknown> = {},
): Promise<{ t: TestApp; api: Api }> {
  const t = await startTestApp();
  return { t, api: integrationApi(t, await t.createIntegrator({ ...UNLIMITED, ...integrator })) };
}

export const COUNTED_TABLES = ['users', 'tenancies', 'documents', 'sessions', 'jobs'] as const;
export type RowCounts = Record<(typeof COUNTED_TABLES)[number], number>;

/** Row counts of every table a request could write, in one query. */
export async function countRows(db: Queryable): Promise<RowCounts> {
  const [row] = await db.query<RowCounts>(
    `SELECT ${COUNTED_TABLES.map((table) => `(SELECT count(*)::int FROM ${table}) AS ${table}`).join(', ')}`,
  );
  return row!;
}

/** How many rows each counted table gained while `action` ran (negative where it lost some). */
export async function rowsAddedBy(db: Queryable, action: () => Promise<unknown>): Promise<RowCounts> {
  const before = await countRows(db);
  await action();
  const after = await countRows(db);
  return Object.fromEntries(
    COUNTED_TABLES.map((table) => [table, after[table] - before[table]]),
  ) as RowCounts;
}

/** Runs `action` and asserts that it left every counted table as it was. */
export async function assertWritesNothing(
  db: Queryable,
  action: () => Promise<unknown>,
  message?: string,
): Promise<void> {
  const before = await countRows(db);
  await action();
  assert.deepEqual(await countRows(db), before, message);
}

/** The internal id of an integrator's user, by the integrator's user_id. */
export async function internalUserId(db: Queryable, integratorId: string, userId: number): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    'SELECT id FROM users WHERE integrator_id = $1 AND external_id = $2',
    [integratorId, userId],
  );
  if (!row) throw new Error(`no user ${userId} for ${integratorId}`);
  return row.id;
}

/** Sets a value at a path of nested objects and arrays (creating nothing: the path must exist but the last key). */
export function setPath(target: unknown, path: readonly (string | number)[], value: unknown): void {
  let node = target as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}

export function deletePath(target: unknown, path: readonly (string | number)[]): void {
  let node = target as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  delete node[path[path.length - 1]!];
}

/** The Operator API of a test app with the operator's token: `path` after /api/operator, e.g. "/payouts/runs". */
export function operatorRequest(
  t: TestApp,
  method: 'GET' | 'POST',
  path: string,
  payload?: object,
): Promise<Answer> {
  return send(t, {
    method,
    url: `/api/operator${path}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    ...(payload ? { payload } : {}),
  });
}

/** Puts the app on a local port and returns the environment the CLI needs to reach it as the operator. */
export async function operatorCliEnv(t: TestApp): Promise<Record<string, string>> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  return {
    RENTPAY_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
  };
}
