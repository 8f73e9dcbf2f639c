/** Shared by the dashboard's payment suites: a platform whose tenants pay, and payments written in bulk. */
import assert from 'node:assert/strict';
import { type Answer, type Api, integrationApi, send, UNLIMITED } from './api-client.ts';
import {
  DASHBOARD,
  type DashboardApp,
  type DashboardPerson,
  fromDashboard,
  signedInPerson,
  startDashboardApp,
} from './dashboard-client.ts';
import { manyUsers } from './fixtures.ts';
import type { TestApp } from './helpers.ts';
import { patchIntegrator } from './operation-tests.ts';

export interface PaymentsDashboard extends DashboardApp {
  /** The platform's Integration API (its server token). */
  api: Api;
}

/**
 * A dashboard app whose platform charges a card fee of 1.45 % (a £1200.00 card payment costs £1217.40), without
 * rate limits, and one person of each of its roles signed in.
 */
export async function startPaymentsDashboard(
  options: Parameters<typeof startDashboardApp>[0] = {},
): Promise<PaymentsDashboard> {
  const d = await startDashboardApp(options);
  const patched = await patchIntegrator(d.t, d.integrator.id, {
    ...UNLIMITED,
    fees: { card: { percent: '1.45', fixed: '0.00' } },
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  return { ...d, api: integrationApi(d.t, d.integrator) };
}

/**
 * Onboards `count` tenants of the platform behind `api`, one tenancy each: emails `${prefix}-n@example.com`,
 * references `${PREFIX}-n`.
 */
export async function onboardTenants(api: Api, count: number, prefix: string): Promise<void> {
  for (let start = 1; start <= count; start += 500) {
    await api.onboardOk(manyUsers(Math.min(500, count - start + 1), start, prefix.toLowerCase()));
  }
}

/** A second platform in the same app, with its admin signed in and its Integration API (no rate limits). */
export async function anotherPlatform(d: DashboardApp, name: string) {
  const integrator = await d.t.createIntegrator({ ...UNLIMITED, name });
  const admin = await signedInPerson(d.t, {
    team: integrator.id,
    email: `admin@${name.toLowerCase()}.example`,
    role: 'admin',
  });
  return { integrator, admin, api: integrationApi(d.t, integrator) };
}

let staff = 0;

/** A person of the operator's staff, signed in: a platform's pages refuse them (403, their console is elsewhere). */
export function operatorStaff(d: DashboardApp): Promise<DashboardPerson> {
  return signedInPerson(d.t, {
    team: null,
    email: `staff-${++staff}@rentpay.example`,
    role: 'operator_admin',
  });
}

/** Signs each role's person in again (after the fake clock moved past their sessions' end). */
export async function signInEveryoneAgain(d: DashboardApp): Promise<void> {
  for (const role of ['admin', 'developer', 'finance', 'support'] as const)
    d[role] = await d[role].signInAgain();
}

/**
 * Payments written straight into the tables, as years of rent leave them behind (a session each): `perTenancy`
 * for each of the integrator's tenancies whose reference starts with `prefix`, the k-th made at `first` plus k
 * times `stepMs` (so tenancies' payments share timestamps, as a batch of scheduled charges does). Every fifth
 * failed; card last 4 digits `${1000 + k}`; £1,250.00, no fee. Returns how many.
 */
export async function seedPayments(
  t: TestApp,
  integratorId: string,
  options: { prefix: string; perTenancy: number; first: Date; stepMs: number },
): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(
    `WITH t AS (SELECT id, user_id FROM tenancies WHERE integrator_id = $1 AND payment_reference LIKE $2 || '-%'),
     s AS (
       INSERT INTO sessions (id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at, created_at)
       SELECT 'ses_seed' || md5(t.id || '.' || g), $1, t.user_id, t.id, md5(t.id || g), $3::timestamptz,
              $3::timestamptz, $3::timestamptz
         FROM t CROSS JOIN generate_series(1, $5::int) AS g
       RETURNING id, user_id, tenancy_id, created_at),
     k AS (SELECT s.*, row_number() OVER (PARTITION BY s.tenancy_id ORDER BY s.id) AS k FROM s),
     p AS (
       INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                             amount_pence, method, card_brand, card_last4, card_exp_month, card_exp_year, reference,
                             idempotency_key, processor, processor_token, processor_payment_id, failure_code,
                             created_at, updated_at, funds_available_at)
       SELECT 'pay_seed' || substr(md5(k.id), 1, 16), $1, k.id, k.user_id, k.tenancy_id,
              CASE WHEN k.k % 5 = 0 THEN 'failed' ELSE 'succeeded' END, 125000, 0, 125000, 'card', 'visa',
              (1000 + k.k)::text, 12, 2030, 'SEEDED', 'k', 'sandbox', 'tok', 'ch_' || k.id,
              CASE WHEN k.k % 5 = 0 THEN 'card_declined' END,
              $3::timestamptz + (k.k - 1) * $4::bigint * interval '1 millisecond',
              $3::timestamptz + (k.k - 1) * $4::bigint * interval '1 millisecond',
              CASE WHEN k.k % 5 <> 0 THEN $3::timestamptz + (k.k - 1) * $4::bigint * interval '1 millisecond' END
         FROM k
       RETURNING 1)
     SELECT count(*)::int AS n FROM p`,
    [integratorId, options.prefix, options.first, options.stepMs, options.perTenancy],
  );
  return row!.n;
}

/** POST /payments/{id}/refunds/ as the person, with an Idempotency-Key (none when `key` is null) and a body. */
export function refundAs(
  person: DashboardPerson,
  paymentId: string,
  body: Record<string, unknown> | undefined,
  key: string | null,
): Promise<Answer> {
  return send(person.t, {
    method: 'POST',
    url: `${DASHBOARD}/payments/${paymentId}/refunds/`,
    headers: fromDashboard(person.t, {
      cookie: person.cookie,
      'x-csrf-token': person.csrfToken,
      ...(key === null ? {} : { 'idempotency-key': key }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    }),
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}
