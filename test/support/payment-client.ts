/** Shared by the payment suites: the sandbox processor and the Client API's payment and card calls, through HTTP. */
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { PaymentService } from '../../src/payments/service.ts';
import type { PaymentProcessor } from '../../src/processors/processor.ts';
import { type Answer, type Api, integrationApi, send, UNLIMITED } from './api-client.ts';
import { tenancyBody, userBody } from './fixtures.ts';
import { startTestApp, type TestApp } from './helpers.ts';

/**
 * A fresh app with two integrators: `api`'s with these fees (default: card 1.45 %, so £1200.00 costs £17.40),
 * and `otherApi`'s, another platform without fees.
 */
export async function startPaymentApp(
  fees: Record<string, { percent: string; fixed: string }> = { card: { percent: '1.45', fixed: '0.00' } },
): Promise<{ t: TestApp; api: Api; otherApi: Api }> {
  const t = await startTestApp();
  return {
    t,
    api: integrationApi(t, await t.createIntegrator({ ...UNLIMITED, fees })),
    otherApi: integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' })),
  };
}

export const PAN = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  threeDsFirst: '4000000000003220',
  threeDsAlways: '4000002760003184',
};

export const DECLINES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
};

export async function cardToken(t: TestApp, number: string): Promise<string> {
  const response = await send(t, {
    method: 'POST',
    url: '/sandbox/tokens',
    payload: { number, exp_month: 12, exp_year: 2030, cvc: '987' },
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.token;
}

export async function walletToken(
  t: TestApp,
  wallet: 'apple_pay' | 'google_pay',
  outcome: 'authorise' | 'fail' = 'authorise',
): Promise<string> {
  const response = await send(t, {
    method: 'POST',
    url: '/sandbox/wallet/tokens',
    payload: { wallet, outcome },
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.token;
}

/** Presses Authorise or Fail on a sandbox page (3DS or APM) whose URL the Client API gave. */
export function answerChallenge(
  t: TestApp,
  pageUrl: string,
  decision: 'authorise' | 'fail',
): Promise<Answer> {
  return send(t, { method: 'POST', url: `${new URL(pageUrl).pathname}/${decision}` });
}

export async function count(t: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params as string[]);
  return row!.n;
}

/** Event types recorded for a payment, oldest first. */
export async function paymentEvents(t: TestApp, paymentId: string): Promise<string[]> {
  const rows = await t.db.query<{ type: string }>(
    "SELECT type FROM events WHERE data->'payment'->>'payment_id' = $1 ORDER BY created_at, id",
    [paymentId],
  );
  return rows.map((row) => row.type);
}

let keys = 0;
export const newKey = () => `key-${++keys}`;

/** The Client API as one user session token calls it. */
export interface Client {
  token: string;
  call(method: InjectOptions['method'], path: string, payload?: unknown): Promise<Answer>;
  /** POST /payments with pure_amount 1200.00, method card and a new idempotency key unless `body` says otherwise. */
  pay(body: Record<string, unknown>): Promise<Answer>;
  payment(id: string): Promise<Answer>;
  cards(): Promise<Answer>;
  card(id: string): Promise<Answer>;
  saveCard(cardToken: string): Promise<Answer>;
  deleteCard(id: string): Promise<Answer>;
  makeDefault(id: string): Promise<Answer>;
}

export function clientOf(t: TestApp, token: string): Client {
  const call: Client['call'] = (method, path, payload) =>
    send(t, {
      method,
      url: `/api/client${path}`,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });
  return {
    token,
    call,
    pay: (body) =>
      call('POST', '/payments', {
        pure_amount: '1200.00',
        method: 'card',
        idempotency_key: newKey(),
        ...body,
      }),
    payment: (id) => call('GET', `/payments/${id}`),
    cards: () => call('GET', '/cards'),
    card: (id) => call('GET', `/cards/${id}`),
    saveCard: (cardToken) => call('POST', '/cards', { card_token: cardToken }),
    deleteCard: (id) => call('DELETE', `/cards/${id}`),
    makeDefault: (id) => call('POST', `/cards/${id}/default`),
  };
}

/** Declined card payments in the client's session until it takes no more (429 too_many_attempts); how many. */
export async function declineUntilBlocked(t: TestApp, client: Client): Promise<number> {
  for (let declined = 0; declined < 20; declined++) {
    const answer = await client.pay({ card_token: await cardToken(t, '4000000000000002') });
    if (answer.status === 429) {
      assert.equal(answer.body.error, 'too_many_attempts');
      return declined;
    }
    assert.equal(answer.body.status, 'failed', JSON.stringify(answer.body));
  }
  throw new Error('the card-testing limit was never reached');
}

/**
 * Uses up the session's request limit (the app's `clientRateLimit`): the limiter reads the app's fake clock, which
 * stands still, so the session's next Client API calls answer 429 rate_limited until the test moves the clock on.
 */
export async function exhaustRequestLimit(client: Client, limit: { burst: number }): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: limit.burst + 1 }, () => client.call('GET', '/session')),
  );
  assert.ok(
    answers.some((answer) => answer.status === 429),
    'the request limit was not reached',
  );
}

/** Moves the app's clock past the request limit's window; the session's next call goes through. */
export async function requestsAllowedAgain(
  t: Pick<TestApp, 'clock'>,
  client: Client,
  limit: { windowMs: number },
): Promise<void> {
  t.clock.advance(limit.windowMs);
  const answer = await client.call('GET', '/session');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

export interface Tenant {
  email: string;
  userId: number;
  sessionId: string;
  client: Client;
  /** A new session (user-login again) of the same user. */
  login(): Promise<Client>;
}

let users = 0;

/** A new user of the integrator behind `api`, logged in: an active, unpaid session. */
export async function newTenant(t: TestApp, api: Api): Promise<Tenant> {
  const userId = ++users;
  const email = `tenant-${userId}@example.com`;
  await api.onboardOk(
    userBody({ user_id: userId, email, tenant: [tenancyBody({ payment_reference: `PAY-${userId}` })] }),
  );
  const session = await api.loginOk(email);
  return {
    email,
    userId,
    sessionId: session.session_id,
    client: clientOf(t, session.token),
    login: async () => clientOf(t, (await api.loginOk(email)).token),
  };
}

/** The app's processor with some of its calls replaced (e.g. a refund whose answer is lost); the rest pass through. */
export function processorWith(
  real: PaymentProcessor,
  overrides: Partial<PaymentProcessor>,
): PaymentProcessor {
  return {
    name: real.name,
    describeToken: (paymentToken, method) => real.describeToken(paymentToken, method),
    authorise: (request) => real.authorise(request),
    complete: (id) => real.complete(id),
    refund: (request) => real.refund(request),
    cancel: (id) => real.cancel(id),
    parseNotification: (body) => real.parseNotification(body),
    saveCard: (paymentToken, key, userId) => real.saveCard(paymentToken, key, userId),
    chargeOffSession: (request) => real.chargeOffSession(request),
    clientConfig: () => real.clientConfig(),
    ...overrides,
  };
}

/** Runs `fn` while the app's routes use a PaymentService over `processor`, then puts the real one back. */
export async function withPaymentsOver<T>(
  t: TestApp,
  processor: PaymentProcessor,
  fn: () => Promise<T>,
): Promise<T> {
  const real = t.app.ctx.payments;
  t.app.ctx.payments = new PaymentService(t.db, t.clock, processor);
  try {
    return await fn();
  } finally {
    t.app.ctx.payments = real;
  }
}
