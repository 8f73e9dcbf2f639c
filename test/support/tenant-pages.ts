/** Shared by the dashboard's tenant, payout and settings suites: a platform with tenants, and another platform. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before } from 'node:test';
import type { Queryable } from '../../src/platform/db/db.ts';
import { type Answer, type Api, integrationApi, UNLIMITED } from './api-client.ts';
import {
  type DashboardApp,
  type DashboardPerson,
  signedInPerson,
  startDashboardApp,
} from './dashboard-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import type { TestApp } from './helpers.ts';
import { type Client, cardToken, clientOf, PAN } from './payment-client.ts';
import { createSchedule } from './schedule-helpers.ts';

export interface TenantPages {
  d: DashboardApp;
  /** The Integration API of the dashboard's platform (to onboard its tenants). */
  api: Api;
  /** Another platform, its Integration API and its admin. */
  otherApi: Api;
  stranger: DashboardPerson;
  /** A person of the operator's staff: the platforms' pages are not theirs. */
  operatorStaff: DashboardPerson;
}

/** A dashboard app (a platform with a person of each role), another platform with its admin, and operator staff. */
export async function startTenantPages(
  options: Parameters<typeof startDashboardApp>[0] = {},
): Promise<TenantPages> {
  const d = await startDashboardApp(options);
  await d.t.app.ctx.integrators.update(d.integrator.id, UNLIMITED, { kind: 'system' });
  const other = await d.t.createIntegrator({ ...UNLIMITED, name: 'Other platform' });
  return {
    d,
    api: integrationApi(d.t, d.integrator),
    otherApi: integrationApi(d.t, other),
    stranger: await signedInPerson(d.t, { team: other.id, email: 'admin@other.example', role: 'admin' }),
    operatorStaff: await signedInPerson(d.t, {
      team: null,
      email: 'staff@operator.example',
      role: 'operator_support',
    }),
  };
}

/** The newest audit entry of `action` in the scope's chain: who made it, and its summary. */
export async function lastAudit(
  db: Queryable,
  scope: string,
  action: string,
): Promise<{
  actor: Record<string, string>;
  summary: { before: unknown; after: unknown };
  target_id: string;
}> {
  const [entry] = await db.query<{
    actor: Record<string, string>;
    summary: { before: unknown; after: unknown };
    target_id: string;
  }>(
    'SELECT actor, summary, target_id FROM audit_log WHERE scope = $1 AND action = $2 ORDER BY seq DESC LIMIT 1',
    [scope, action],
  );
  assert.ok(entry, `no ${action} entry in ${scope}`);
  return entry;
}

export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
export const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a', 'hex'),
  Buffer.from('0000000d49484452', 'hex'),
]);

/** A platform's document links on this machine: /agreement.pdf and /photo.png; anything else is a 404. */
export async function documentHost(): Promise<{ origin: string; close(): Promise<void> }> {
  const host = http.createServer((req, res) => {
    if (req.url === '/agreement.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
    else if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(host.address() as net.AddressInfo).port}`,
    close: () => new Promise((resolve) => host.close(() => resolve())),
  };
}

/**
 * A tenant of `api` logged in to `reference` with an active saved Visa card, and their schedule of that tenancy
 * (set up as the page does it).
 */
export async function tenantWithSchedule(
  t: TestApp,
  api: Api,
  email: string,
  reference: string,
): Promise<{ client: Client; scheduleId: string }> {
  const client = clientOf(t, (await api.loginOk(email, reference)).token);
  const saved = await client.saveCard(await cardToken(t, PAN.visa));
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  const schedule = await createSchedule({ client, cardId: saved.body.card_id });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  return { client, scheduleId: schedule.body.schedule_id };
}

/**
 * For the schedule action suites, started before the suite's tests and closed after them: the pages, a schedule of
 * the platform's user 1 and one of the other platform's user 1 (B-1), and `act(action, reason, who, id)` (by
 * default finance on the platform's schedule).
 */
export function scheduleActionSuite(): () => TenantPages & {
  scheduleId: string;
  othersId: string;
  act(action: string, reason: unknown, who?: DashboardPerson, id?: string): Promise<Answer>;
} {
  let s: TenantPages;
  let scheduleId: string;
  let othersId: string;
  before(async () => {
    s = await startTenantPages();
    for (const [api, reference] of [
      [s.api, 'A-1'],
      [s.otherApi, 'B-1'],
    ] as const) {
      await api.onboardOk(
        userBody({
          user_id: 1,
          email: `${reference}@example.com`,
          tenant: [tenancyBody({ payment_reference: reference })],
        }),
      );
    }
    scheduleId = (await tenantWithSchedule(s.d.t, s.api, 'A-1@example.com', 'A-1')).scheduleId;
    othersId = (await tenantWithSchedule(s.d.t, s.otherApi, 'B-1@example.com', 'B-1')).scheduleId;
  });
  after(() => s?.d.t.close());
  return () => ({
    ...s,
    scheduleId,
    othersId,
    act: (action, reason, who = s.d.finance, id = scheduleId) =>
      who.post(`/schedules/${id}/${action}/`, reason === undefined ? {} : { reason }),
  });
}
