/** Shared by the onboarding, session and isolation tests: one integrator's view of the Integration API. */
import type { LightMyRequestResponse } from 'fastify';
import type { Queryable } from '../src/platform/db/db.ts';
import { type TestApp, tokenHeader } from './helpers.ts';

export const ONBOARDING = '/api/third-party/onboarding/';
export const USER_LOGIN = '/api/third-party/user-login/';
export const CLIENT_SESSION = '/api/client/session';
export const sessionPath = (id: string) => `/api/third-party/session/${encodeURIComponent(id)}/`;

/** Rate limits high enough that hundreds of requests in a second never meet a 429. */
export const UNLIMITED = { rate_limit_per_second: 100_000, rate_limit_burst: 1_000_000 };

export const DATE_MESSAGE = 'Date has wrong format or is not a real date. Use YYYY-MM-DD.';

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer, asserted on field by field
  body: any;
  headers: Record<string, unknown>;
}

async function answer(promise: Promise<LightMyRequestResponse>): Promise<Answer> {
  const response = await promise;
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body, headers: response.headers };
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
    answer(
      t.app.inject({
        method: 'POST',
        url,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      }),
    );
  const api: Api = {
    integratorId: integrator.id,
    serverToken: integrator.token,
    onboard: (body) => post(ONBOARDING, body),
    login: (body) => post(USER_LOGIN, body),
    session: (id) => answer(t.app.inject({ method: 'GET', url: sessionPath(id), headers: auth })),
    clientSession: (token) =>
      answer(
        t.app.inject({ method: 'GET', url: CLIENT_SESSION, headers: { authorization: `Bearer ${token}` } }),
      ),
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

export const COUNTED_TABLES = ['users', 'tenancies', 'documents', 'sessions', 'jobs'] as const;
export type RowCounts = Record<(typeof COUNTED_TABLES)[number], number>;

/** Row counts of every table a request could write, in one query. */
export async function countRows(db: Queryable): Promise<RowCounts> {
  const [row] = await db.query<RowCounts>(
    `SELECT ${COUNTED_TABLES.map((table) => `(SELECT count(*)::int FROM ${table}) AS ${table}`).join(', ')}`,
  );
  return row!;
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
