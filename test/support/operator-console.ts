/** Shared by the operator console's suites: an app with a platform's team and the operator's staff, signed in. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { Role } from '../../src/shared/roles.ts';
import { assertError, integrationApi } from './api-client.ts';
import {
  type DashboardApp,
  type DashboardPerson,
  signedInPerson,
  startDashboardApp,
} from './dashboard-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import { runJobs, type TestApp } from './helpers.ts';
import { paidTenant } from './operation-tests.ts';
import { clientOf } from './payment-client.ts';
import { confirmationToken, type StripeApp, startStripeApp } from './stripe-app.ts';

/** A dashboard app (a platform and its team) with an operator_admin and an operator_support signed in. */
export interface ConsoleApp extends DashboardApp {
  opsAdmin: DashboardPerson;
  opsSupport: DashboardPerson;
}

/** Signs in one of the operator's staff (the operator's team: no integrator). */
export function operatorStaff(t: TestApp, email: string, role: Role): Promise<DashboardPerson> {
  return signedInPerson(t, { team: null, email, role });
}

export async function startConsoleApp(
  options: Parameters<typeof startDashboardApp>[0] = {},
): Promise<ConsoleApp> {
  const d = await startDashboardApp(options);
  return {
    ...d,
    opsAdmin: await operatorStaff(d.t, 'ops-admin@rentpay.example', 'operator_admin'),
    opsSupport: await operatorStaff(d.t, 'ops-support@rentpay.example', 'operator_support'),
  };
}

/** After the clock moved past their sessions' end: everyone signs in again (their sessions replace the old ones). */
export async function signInEveryoneAgain(c: ConsoleApp): Promise<void> {
  for (const who of ['admin', 'developer', 'finance', 'support', 'opsAdmin', 'opsSupport'] as const) {
    c[who] = await c[who].signInAgain();
  }
}

/**
 * A tenant of the console app's platform who paid £1200.00, then a payout run made by `maker` (operator_admin unless
 * given) from the console: the tenant and the console's answer.
 */
export async function paidOutConsoleRun(c: ConsoleApp, maker: DashboardPerson = c.opsAdmin) {
  const tenant = await paidTenant(c.t, integrationApi(c.t, c.integrator));
  const answer = await maker.post('/operator/payout-runs/', {});
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  assert.ok(
    answer.body.items.some((payout: { payment_ids: string[] }) =>
      payout.payment_ids.includes(tenant.payment.payment_id),
    ),
    'the run pays out the payment',
  );
  return { tenant, run: answer.body };
}

/**
 * The refusals every operator console route shares besides a session's: a platform's people, whatever their role,
 * get 403 saying the console is the operator staff's.
 */
export function itRefusesPlatformPeople(
  c: () => ConsoleApp,
  method: NonNullable<InjectOptions['method']>,
  path: string,
  payload?: unknown,
): void {
  it('403 for a platform’s people, the admin included: the console is the operator staff’s', async () => {
    const { admin, developer, finance, support } = c();
    for (const person of [admin, developer, finance, support]) {
      assertError(
        await person.request(method, path, payload),
        403,
        'forbidden',
        /operator console is for the operator’s staff/,
      );
    }
  });
}

const UNKNOWN = { integrator: 'int_unknown0000000000000', 'payout run': 'prun_unknown000000000000' } as const;

/** 404 for a well-formed id of nothing, 400 for what is not such an id (as operator_admin). */
export function itChecksTheId(
  c: () => ConsoleApp,
  what: keyof typeof UNKNOWN,
  method: NonNullable<InjectOptions['method']>,
  pathOf: (id: string) => string,
): void {
  it(`404 for an unknown ${what}, 400 for what is not a${what === 'integrator' ? 'n' : ''} ${what} id`, async () => {
    const { opsAdmin } = c();
    assertError(await opsAdmin.request(method, pathOf(UNKNOWN[what])), 404, 'not_found', /^No /);
    assertError(await opsAdmin.request(method, pathOf('pay_1')), 400, 'invalid_request');
  });
}

/** operator_support reads but changes nothing: 403 naming the permission its role lacks. */
export function itRefusesOperatorSupport(
  c: () => ConsoleApp,
  method: NonNullable<InjectOptions['method']>,
  path: string,
  permission: string,
  payload?: unknown,
): void {
  it(`403 for operator_support: its role does not allow ${permission}`, async () => {
    const answer = await c().opsSupport.request(method, path, payload);
    assertError(
      answer,
      403,
      'forbidden',
      new RegExp(
        `Your role \\(operator_support\\) does not allow this \\(${permission.replace('.', '\\.')}\\)`,
      ),
    );
  });
}

/** The actions of the audit log's newest entries of a scope, with who made them (email and role). */
export async function newestAudit(
  t: TestApp,
  scope: string,
  limit = 1,
): Promise<{ action: string; email: string | undefined; role: string | undefined }[]> {
  const entries = await t.db.query<{ action: string; actor: { email?: string; role?: string } }>(
    'SELECT action, actor FROM audit_log WHERE scope = $1 ORDER BY seq DESC LIMIT $2',
    [scope, limit],
  );
  assert.ok(entries.length > 0, `no audit entry in ${scope}`);
  return entries.map((entry) => ({ action: entry.action, email: entry.actor.email, role: entry.actor.role }));
}

/**
 * Production (Stripe, through its stand-in): two tenants paid their rent to two landlord accounts never paid before
 * (123456 12345678 and 123456 87654321), their funds available; then two operator_admins and an operator_support
 * signed in.
 */
export interface ProductionConsole {
  s: StripeApp;
  first: DashboardPerson;
  second: DashboardPerson;
  opsSupport: DashboardPerson;
}

export async function startProductionConsole(): Promise<ProductionConsole> {
  const s = await startStripeApp({ serviceEnv: 'production' });
  await s.api.onboardOk([
    userBody({ user_id: 1, email: 'a@example.com', tenant: [tenancyBody({ payment_reference: 'PROD-A' })] }),
    userBody({
      user_id: 2,
      email: 'b@example.com',
      tenant: [tenancyBody({ payment_reference: 'PROD-B', recipient_bank_account_number: '87654321' })],
    }),
  ]);
  for (const email of ['a@example.com', 'b@example.com']) {
    const session = await s.api.loginOk(email);
    const paid = await clientOf(s.t, session.token).pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
    });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
  }
  // Stripe makes the funds available two days after the charge; the settlement jobs read when.
  await runJobs(s.t);
  s.t.clock.advance(2 * 86_400_000);
  return {
    s,
    first: await operatorStaff(s.t, 'first-admin@rentpay.example', 'operator_admin'),
    second: await operatorStaff(s.t, 'second-admin@rentpay.example', 'operator_admin'),
    opsSupport: await operatorStaff(s.t, 'ops-support@rentpay.example', 'operator_support'),
  };
}
