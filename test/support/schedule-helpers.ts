/** Shared by the schedule suites: tenants with a saved card, the schedule routes of both APIs, the test clock. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type Answer, type Api, assertError, send } from './api-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import { runJobs, type TestApp } from './helpers.ts';
import { answerChallenge, type Client, cardToken, clientOf, PAN, startPaymentApp } from './payment-client.ts';

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

export interface ScheduleApp {
  t: TestApp;
  api: Api;
  otherApi: Api;
  schedules: ReturnType<typeof integrationSchedules>;
  /** A new tenant of `api` with a saved card, rent due on `rentDueDay`. */
  tenant(rentDueDay?: number): Promise<ScheduleTenant>;
}

/** An app with two integrators (`api`, `otherApi`) for the Integration API's schedule suites; the clock starts at 2026-03-01T09:00Z. */
export async function startScheduleApp(): Promise<ScheduleApp> {
  const { t, api, otherApi } = await startPaymentApp();
  return {
    t,
    api,
    otherApi,
    schedules: integrationSchedules(t, api),
    tenant: (rentDueDay = 10) =>
      scheduleTenant(t, api, { rent_due_day: rentDueDay }, PAN.visa, () => runJobs(t)),
  };
}

const UNKNOWN_SCHEDULE =
  /^No schedule sch_nope\. List a user's schedules and their ids with GET \/api\/third-party\/schedules\/\?user_id=<your user_id>\.$/;

/**
 * The refusals pause, resume and cancel share, as tests of the calling suite: a malformed id (400), an unknown one
 * (404), another integrator's schedule (404, as an unknown one) and no token (401); the last two leave the schedule
 * as `start` made it (in the state the action starts from).
 */
export function itRefusesScheduleChanges(
  action: 'pause' | 'resume' | 'cancel',
  app: () => ScheduleApp,
  start: () => Promise<{ userId: number; schedule: { schedule_id: string } }>,
): void {
  it('400 for an id that is not a schedule id; 404 for an unknown one', async () => {
    const { schedules } = app();
    assertError(
      await schedules.change('nope', action),
      400,
      'invalid_request',
      /^Invalid params: schedule_id: Enter a schedule id: "sch_" followed by letters and digits\.$/,
    );
    assertError(await schedules.change('sch_nope', action), 404, 'not_found', UNKNOWN_SCHEDULE);
  });

  it('another integrator’s schedule is 404, as an unknown one, and stays as it was', async () => {
    const { t, otherApi, schedules } = app();
    const { userId, schedule } = await start();
    const before = (await schedules.list(userId)).body.schedules;
    const answer = await integrationSchedules(t, otherApi).change(schedule.schedule_id, action);
    assertError(answer, 404, 'not_found', new RegExp(`^No schedule ${schedule.schedule_id}\\. List`));
    assert.deepEqual((await schedules.list(userId)).body.schedules, before);
  });

  it('401 without a token, or with an unknown one; the schedule stays as it was', async () => {
    const { t, schedules } = app();
    const { userId, schedule } = await start();
    const before = (await schedules.list(userId)).body.schedules;
    const events = await scheduleEvents(t, schedule.schedule_id);
    const url = `/api/third-party/schedules/${schedule.schedule_id}/${action}/`;
    assertError(
      await send(t, { method: 'POST', url }),
      401,
      'unauthorized',
      /^Authentication credentials were not provided\./,
    );
    assertError(
      await send(t, {
        method: 'POST',
        url,
        headers: { authorization: `Token rp_sandbox_${'x'.repeat(40)}` },
      }),
      401,
      'unauthorized',
      /^Invalid or expired token\./,
    );
    assert.deepEqual((await schedules.list(userId)).body.schedules, before);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), events);
  });
}
