/** Shared by the schedule suites: tenants with a saved card, the schedule routes of both APIs, the test clock. */
import assert from 'node:assert/strict';
import { type Answer, type Api, send } from './api-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import type { TestApp } from './helpers.ts';
import { answerChallenge, type Client, cardToken, clientOf, PAN } from './payment-client.ts';

/** The keys of a Schedule as every API shows it, sorted. */
export const SCHEDULE_KEYS = [
  'amount',
  'authorization',
  'card',
  'created_at',
  'fee',
  'frequency',
  'installment_plan',
  'next_due_date',
  'payment_reference',
  'pure_amount',
  'rent_due_day',
  'schedule_id',
  'status',
  'updated_at',
  'user_id',
];

export interface ScheduleTenant {
  userId: number;
  email: string;
  reference: string;
  sessionId: string;
  client: Client;
  /** An active saved card of the user. */
  cardId: string;
  /** The sandbox token behind that card (tests change its behaviour to make charges fail). */
  cardToken: string;
}

let users = 1000;

/**
 * A new user of `api`'s integrator with one tenancy (tenancyBody with `tenancy` on top), logged in, with an active
 * saved card of `pan` (a 3DS card's check is authorised through the sandbox page and its notification job).
 */
export async function scheduleTenant(
  t: TestApp,
  api: Api,
  tenancy: Record<string, unknown> = {},
  pan = PAN.visa,
  runJobs?: () => Promise<unknown>,
): Promise<ScheduleTenant> {
  const userId = ++users;
  const email = `recurring-${userId}@example.com`;
  const reference = `REC-${userId}`;
  await api.onboardOk(
    userBody({ user_id: userId, email, tenant: [tenancyBody({ payment_reference: reference, ...tenancy })] }),
  );
  const session = await api.loginOk(email);
  const client = clientOf(t, session.token);
  const token = await cardToken(t, pan);
  const saved = await client.saveCard(token);
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  if (saved.body.status === 'requires_action') {
    assert.equal((await answerChallenge(t, saved.body.next_action.url, 'authorise')).status, 202);
    assert.ok(runJobs, 'a 3DS card needs runJobs to apply its check');
    await runJobs();
    assert.equal((await client.card(saved.body.card_id)).body.status, 'active');
  }
  return {
    userId,
    email,
    reference,
    sessionId: session.session_id,
    client,
    cardId: saved.body.card_id,
    cardToken: token,
  };
}

/**
 * POST /schedules as the page does it: the preview's authorisation sentence sent back (unless `body` has its own
 * authorization_text). A refused preview is answered as the set-up would be.
 */
export async function createSchedule(
  tenant: Pick<ScheduleTenant, 'client' | 'cardId'>,
  body: Record<string, unknown> = {},
): Promise<Answer> {
  const request = { saved_card_id: tenant.cardId, ...body };
  if ('authorization_text' in body) return tenant.client.call('POST', '/schedules', request);
  const preview = await tenant.client.call('POST', '/schedules/preview', request);
  if (preview.status !== 200) return preview;
  return tenant.client.call('POST', '/schedules', {
    ...request,
    authorization_text: preview.body.authorization.text,
  });
}

/** POST /schedules, asserting a 201; the Schedule. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
export async function scheduleOk(tenant: ScheduleTenant, body: Record<string, unknown> = {}): Promise<any> {
  const answer = await createSchedule(tenant, body);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

export function clientChange(tenant: ScheduleTenant, id: string, action: string): Promise<Answer> {
  return tenant.client.call('POST', `/schedules/${id}/${action}`);
}

/** The Integration API's schedule routes, as `api`'s integrator calls them. */
export function integrationSchedules(t: TestApp, api: Api) {
  const auth = { authorization: `Token ${api.serverToken}` };
  return {
    list: (userId: number | string) =>
      send(t, { method: 'GET', url: `/api/third-party/schedules/?user_id=${userId}`, headers: auth }),
    change: (id: string, action: string) =>
      send(t, { method: 'POST', url: `/api/third-party/schedules/${id}/${action}/`, headers: auth }),
    /** The sandbox test clock. */
    run: (asOf: unknown) =>
      send(t, {
        method: 'POST',
        url: '/api/third-party/sandbox/run-schedules/',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ as_of: asOf }),
      }),
  };
}

/** Types of the schedule_* events of a schedule, oldest first. */
export async function scheduleEvents(t: TestApp, scheduleId: string): Promise<string[]> {
  const rows = await t.db.query<{ type: string }>(
    "SELECT type FROM events WHERE data->'schedule'->>'schedule_id' = $1 ORDER BY created_at, id",
    [scheduleId],
  );
  return rows.map((row) => row.type);
}

/** The schedule's payments, oldest first, as the payment_* events carried them. */
export async function schedulePaymentEvents(
  t: TestApp,
  scheduleId: string,
): Promise<{ type: string; data: Record<string, unknown> & { payment: Record<string, unknown> } }[]> {
  return t.db.query(
    `SELECT type, data FROM events WHERE data->'payment'->>'schedule_id' = $1 ORDER BY created_at, id`,
    [scheduleId],
  );
}
