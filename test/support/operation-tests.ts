/**
 * Shared by the tests of one operation each (test/api/client/<operation>.test.ts and
 * test/api/operator/<operation>.test.ts): the cases every operation has (authentication, field errors, a malformed or
 * unknown id), and the saved cards, schedules, payments, payout runs, integrators and webhook endpoints they start
 * from.
 */
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import {
  type Answer,
  type Api,
  assertError,
  integrationApi,
  operatorRequest,
  send,
  UNLIMITED,
} from './api-client.ts';
import { OPERATOR_TOKEN, runJobs, startTestApp, type TestApp, tokenHeader } from './helpers.ts';
import { type Client, cardToken, newTenant, PAN } from './payment-client.ts';
import { clientChange, type ScheduleTenant, scheduleOk, scheduleTenant } from './schedule-helpers.ts';
import { Receiver, type Reply } from './webhook-receiver.ts';

/** The keys of a SavedCard, sorted. */
export const SAVED_CARD_KEYS = [
  'brand',
  'card_id',
  'created_at',
  'exp_month',
  'exp_year',
  'is_default',
  'last4',
  'next_action',
  'status',
];

/** The keys of an Integrator as the Operator API shows it (never a token or a secret), sorted. */
export const INTEGRATOR_KEYS = [
  'allowed_origins',
  'business_lets',
  'created_at',
  'environment',
  'features',
  'fees',
  'integrator_id',
  'name',
  'rate_limit_burst',
  'rate_limit_per_second',
  'reminder_days_before',
  'status',
  'updated_at',
  'webhook_url',
];

interface Operation {
  method: InjectOptions['method'];
  /** The full path, e.g. /api/client/session. */
  url: string;
  payload?: InjectOptions['payload'];
}

function assertUnauthorized(answer: Answer, code: string, what: string): void {
  assert.equal(answer.status, 401, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.error, code, what);
  assert.equal(answer.headers['www-authenticate'], 'Bearer', what);
}

/**
 * A Client API operation refuses a request without a token (401 unauthorized) and one whose user session token has
 * lapsed (401 session_expired). Logs in a new tenant of `api`, then moves the app's clock past the token's lifetime,
 * so every token the file made before lapses too: call it in the file's last test.
 */
export async function assertClientTokenRequired(t: TestApp, api: Api, operation: Operation): Promise<void> {
  const { client } = await newTenant(t, api);
  const body = operation.payload === undefined ? {} : { payload: operation.payload };
  assertUnauthorized(
    await send(t, { method: operation.method, url: operation.url, ...body }),
    'unauthorized',
    'no token',
  );
  t.clock.advance(t.config.userTokenTtlSeconds * 1000 + 1000);
  assertUnauthorized(
    await send(t, {
      method: operation.method,
      url: operation.url,
      headers: { authorization: `Bearer ${client.token}` },
      ...body,
    }),
    'session_expired',
    'a lapsed token',
  );
}

/** An Operator API operation refuses a request without a token, and one with a wrong token: 401 unauthorized. */
export async function assertOperatorTokenRequired(t: TestApp, operation: Operation): Promise<void> {
  const body = operation.payload === undefined ? {} : { payload: operation.payload };
  for (const [what, headers] of [
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer rpo_not_the_operator_token_000000000000' }],
  ] as const) {
    assertUnauthorized(
      await send(t, { method: operation.method, url: operation.url, headers, ...body }),
      'unauthorized',
      what,
    );
  }
}

/** Each request body of `cases` is refused with 400 and exactly its field errors. */
export async function assertFieldErrors<Body>(
  call: (body: Body) => Promise<Answer>,
  cases: readonly (readonly [Body, unknown])[],
): Promise<void> {
  for (const [body, errors] of cases) {
    const answer = await call(body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.deepEqual(answer.body, errors, JSON.stringify(body));
  }
}

/**
 * An operation on one resource checks its id: 400 invalid_request for `nope` (an id of no kind; the detail names
 * `field`), 404 not_found for `unknown` (well formed, but no such resource; the detail matching `notFound`).
 */
export async function assertIdChecked(
  call: (id: string) => Promise<Answer>,
  field: string,
  unknown: string,
  notFound?: RegExp,
): Promise<void> {
  assertError(await call('nope'), 400, 'invalid_request', new RegExp(field));
  assertError(await call(unknown), 404, 'not_found', notFound);
}

/**
 * Saves a card of `pan` for `client` (asserting a 201), then moves the clock on a minute so the next card is newer;
 * the SavedCard.
 */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
export async function savedCard(t: TestApp, client: Client, pan = PAN.visa): Promise<any> {
  const answer = await client.saveCard(await cardToken(t, pan));
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  t.clock.advance(60_000);
  return answer.body;
}

/**
 * A Client API operation on one saved card checks its id (`call`, as `client` makes it): 400 for an id that is not a
 * card id, 404 for an unknown card and for a card the user has deleted.
 */
export async function assertCardIdChecked(
  t: TestApp,
  client: Client,
  call: (id: string) => Promise<Answer>,
): Promise<void> {
  await assertIdChecked(call, 'card_id', 'card_unknown', /^No such saved card\.$/);
  const card = await savedCard(t, client);
  assert.equal((await client.deleteCard(card.card_id)).status, 204);
  assertError(await call(card.card_id), 404, 'not_found', /^No such saved card\.$/);
}

/** The Integration API of a new integrator with one feature of the Client API turned off. */
export async function integratorWithout(t: TestApp, feature: 'savedCards' | 'recurring'): Promise<Api> {
  return integrationApi(
    t,
    await t.createIntegrator({ ...UNLIMITED, name: `No ${feature}`, features: { [feature]: false } }),
  );
}

/** A new schedule tenant of `api` (a saved Visa card; tenancyBody with `tenancy` on top) and their new Schedule. */
export async function scheduledTenant(t: TestApp, api: Api, tenancy: Record<string, unknown> = {}) {
  const tenant = await scheduleTenant(t, api, tenancy);
  return { tenant, schedule: await scheduleOk(tenant) };
}

/** The tenant's schedules as GET /api/client/schedules lists them. */
export async function clientSchedules(tenant: Pick<ScheduleTenant, 'client'>): Promise<unknown[]> {
  const answer = await tenant.client.call('GET', '/schedules');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.schedules;
}

/**
 * POST /api/client/schedules/{id}/`action` on the owner's schedule by a new tenant of each of `apis` (this and
 * another integrator) is 404; the owner still lists the schedule as it was.
 */
export async function assertOthersCannotChange(
  t: TestApp,
  apis: Api[],
  owner: ScheduleTenant,
  schedule: { schedule_id: string },
  action: string,
): Promise<void> {
  for (const api of apis) {
    const stranger = await scheduleTenant(t, api);
    assertError(await clientChange(stranger, schedule.schedule_id, action), 404, 'not_found');
  }
  assert.deepEqual(await clientSchedules(owner), [schedule]);
}

let keys = 0;

/** A card payment of `client` (£1200.00, a new card of `pan`), asserting a 201; the Client API's Payment. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
export async function cardPayment(t: TestApp, client: Client, pan = PAN.visa): Promise<any> {
  const answer = await client.pay({
    card_token: await cardToken(t, pan),
    idempotency_key: `operation-test-${++keys}`,
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

/** A new tenant of `api` who paid £1200.00 by card: the tenant and the succeeded payment. */
export async function paidTenant(t: TestApp, api: Api) {
  const tenant = await newTenant(t, api);
  const payment = await cardPayment(t, tenant.client);
  assert.equal(payment.status, 'succeeded');
  return { ...tenant, payment };
}

/**
 * A new tenant of `api` who paid £1200.00, and the payout run made right after (asserting a 201): the tenant, the run
 * and the run's payout of that payment.
 */
export async function paidOutRun(t: TestApp, api: Api) {
  const tenant = await paidTenant(t, api);
  const answer = await operatorRequest(t, 'POST', '/payouts/runs', {});
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  const item = answer.body.items.find((payout: { payment_ids: string[] }) =>
    payout.payment_ids.includes(tenant.payment.payment_id),
  );
  assert.ok(item, 'the run pays out the payment');
  return { tenant, run: answer.body, item };
}

/** The payout run as GET /api/operator/payouts/runs/{id} shows it now. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
export async function shownRun(t: TestApp, id: string): Promise<any> {
  const answer = await operatorRequest(t, 'GET', `/payouts/runs/${id}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** PATCH /api/operator/integrators/{id} with the operator's token (any JSON value as the body). */
export function patchIntegrator(t: TestApp, id: string, payload: unknown): Promise<Answer> {
  return send(t, {
    method: 'PATCH',
    url: `/api/operator/integrators/${id}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    payload: payload as InjectOptions['payload'],
  });
}

/** The Integrator as GET /api/operator/integrators/{id} shows it now. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
export async function shownIntegrator(t: TestApp, id: string): Promise<any> {
  const answer = await operatorRequest(t, 'GET', `/integrators/${id}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** GET /api/third-party/integrator/ with a server token: which integrator it is, or why it is refused. */
export function whoami(t: TestApp, serverToken: string): Promise<Answer> {
  return send(t, { method: 'GET', url: '/api/third-party/integrator/', headers: tokenHeader(serverToken) });
}

export interface WebhookApp {
  t: TestApp;
  /** The integrator's endpoint: it answers 200 ok unless `answering` says otherwise. */
  receiver: Receiver;
  integrator: { id: string; token: string; webhookSecret: string };
  api: Api;
  /** The Integration API of a new integrator, with this webhook URL (e.g. the same receiver's) or without one. */
  otherIntegrator(webhookUrl?: string): Promise<Api>;
  /** A new tenant of `api` (default: this integrator's) pays: the id of the payment_success event. */
  paidEvent(api?: Api): Promise<string>;
  /** paidEvent for each of `apis` in turn: the ids. */
  paidEvents(...apis: Api[]): Promise<string[]>;
  /** Runs `fn` while the receiver answers `reply` to everything, then answers 200 ok again. */
  answering<T>(reply: Reply, fn: () => Promise<T>): Promise<T>;
  /** The endpoint answers 410 Gone to a new payment's event, which disables it (asserted); that event's id. */
  disableEndpoint(): Promise<string>;
  /** GET /api/operator/integrators/{id}/webhook: the endpoint of `id` (default: this integrator). */
  endpoint(id?: string): Promise<Answer>;
  /** The event as GET /api/operator/webhooks/events/{id} shows it now. */
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer
  event(id: string): Promise<any>;
  close(): Promise<void>;
}

/**
 * A fresh app (private webhook hosts allowed) with one integrator whose webhook URL is a local receiver that answers
 * 200 until told otherwise.
 */
export async function startWebhookApp(): Promise<WebhookApp> {
  const t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
  const receiver = await Receiver.start();
  const integrator = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
  const api = integrationApi(t, integrator);
  const endpoint = (id = integrator.id) => operatorRequest(t, 'GET', `/integrators/${id}/webhook`);
  const w: WebhookApp = {
    t,
    receiver,
    integrator,
    api,
    async otherIntegrator(webhookUrl) {
      const settings = webhookUrl ? { name: 'Other', webhook_url: webhookUrl } : { name: 'No URL' };
      return integrationApi(t, await t.createIntegrator({ ...UNLIMITED, ...settings }));
    },
    async paidEvent(payer = api) {
      return successEventId(t, (await paidTenant(t, payer)).payment.payment_id);
    },
    async paidEvents(...apis) {
      const ids: string[] = [];
      for (const payer of apis) ids.push(await w.paidEvent(payer));
      return ids;
    },
    async answering(reply, fn) {
      receiver.respond = () => reply;
      try {
        return await fn();
      } finally {
        receiver.respond = () => ({ status: 200, body: 'ok' });
      }
    },
    disableEndpoint: () =>
      w.answering({ status: 410 }, async () => {
        const id = await w.paidEvent();
        await runJobs(t);
        assert.equal((await endpoint()).body.state, 'disabled');
        return id;
      }),
    endpoint,
    async event(id) {
      const answer = await operatorRequest(t, 'GET', `/webhooks/events/${id}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body;
    },
    async close() {
      await t.close();
      await receiver.close();
    },
  };
  return w;
}

/** The id of the payment_success event of a payment. */
export async function successEventId(t: TestApp, paymentId: string): Promise<string> {
  const [event] = await t.db.query<{ id: string }>(
    "SELECT id FROM events WHERE type = 'payment_success' AND data->'payment'->>'payment_id' = $1",
    [paymentId],
  );
  assert.ok(event, `no payment_success for ${paymentId}`);
  return event.id;
}
