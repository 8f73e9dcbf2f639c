/** Card testing through the Client API: decline limits per session and per tenant, and the per-session rate limit. */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { SESSION_DECLINE_LIMIT, USER_DECLINE_LIMIT } from '../../../src/cards/card-testing.ts';
import type { PaymentProcessor } from '../../../src/processors/processor.ts';
import { type Answer, type Api, assertError, integrationApi, UNLIMITED } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import {
  createTestDatabase,
  runJobs,
  startTestApp,
  TEST_REDIS_URL,
  type TestApp,
} from '../../support/helpers.ts';
import {
  answerChallenge,
  type Client,
  cardToken,
  clientOf,
  count,
  DECLINES,
  newKey,
  newTenant,
  PAN,
  startPaymentApp,
  walletToken,
} from '../../support/payment-client.ts';
import { integrationSchedules, scheduleOk, scheduleTenant } from '../../support/schedule-helpers.ts';

/** The documented default limit per payment session. */
const CLIENT_RATE_LIMIT_BURST = 40;
const CLIENT_RATE_LIMIT_PER_SECOND = 20;

const DECLINED = '4000000000000002';
const HOUR = 3_600_000;
const SESSION_LIMIT =
  /^Too many declined cards in this payment session \(5\); it takes no more payment attempts\./;
const USER_LIMIT = /^Too many declined cards for this tenant in 24 hours \(10\); try again after (\d+) s\.$/;

/** A card payment with a new token of `pan`. */
async function payWith(t: TestApp, client: Client, pan: string, body: Record<string, unknown> = {}) {
  return client.pay({ card_token: await cardToken(t, pan), ...body });
}

function assertTooMany(answer: Answer, retryAfter: number, detail: RegExp): void {
  assertError(answer, 429, 'too_many_attempts', detail);
  assert.equal(answer.headers['retry-after'], String(retryAfter));
}

/** Whole seconds from the app's clock until the client's session expires (as GET /session tells it). */
async function secondsToExpiry(t: TestApp, client: Client): Promise<number> {
  const { body } = await client.call('GET', '/session');
  return Math.ceil((Date.parse(body.expires_at) - t.clock.now().getTime()) / 1000);
}

/** From now on the issuer declines every charge of this (saved) card. */
const issuerDeclines = (t: TestApp, token: string) =>
  t.db.query("UPDATE sandbox_tokens SET behaviour = 'card_declined' WHERE id = $1", [token]);

/** Card declines recorded for the user behind a session. */
const userDeclines = (t: TestApp, sessionId: string) =>
  count(t, 'card_declines WHERE user_id = (SELECT user_id FROM sessions WHERE id = $1)', [sessionId]);

const PROCESSOR_CALLS = [
  'describeToken',
  'authorise',
  'complete',
  'refund',
  'cancel',
  'saveCard',
  'chargeOffSession',
] as const;

/**
 * Counts, until the test ends, every call to the app's processor: the one instance behind payments and card
 * saves alike (a PaymentService swapped in by withPaymentsOver would not see card saves: the card routes keep
 * the service they were registered with).
 */
function spyOnProcessor(ctx: TestContext, processor: PaymentProcessor) {
  const spies = PROCESSOR_CALLS.map((name) => ({ name, spy: ctx.mock.method(processor, name) }));
  const inTransaction = ctx.mock.method(
    processor as Required<Pick<PaymentProcessor, 'authoriseInTransaction'>>,
    'authoriseInTransaction',
  );
  const calls = (name?: (typeof PROCESSOR_CALLS)[number]) =>
    spies
      .filter((s) => name === undefined || s.name === name)
      .reduce((n, s) => n + s.spy.mock.callCount(), 0) +
    (name === undefined ? inTransaction.mock.callCount() : 0);
  /** Payments sent to be charged: one per authorise, one per request of a charge inside the transaction. */
  const charges = () =>
    calls('authorise') + inTransaction.mock.calls.reduce((n, call) => n + call.arguments[1].length, 0);
  return Object.assign(calls, { charges });
}

describe('card testing: decline limits', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  before(async () => {
    ({ t, api, otherApi } = await startPaymentApp());
  });
  after(() => t.close());

  it('after 5 declines in a session, every attempt (any method, card saves) is 429 until it expires, and the processor is not asked; a replay still answers', async (ctx) => {
    const tenant = await newTenant(t, api);
    const saved = await tenant.client.saveCard(await cardToken(t, PAN.visa));
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const declinePans = Object.keys(DECLINES);
    const firstToken = await cardToken(t, declinePans[0]!);
    const firstKey = newKey();
    const first = await tenant.client.pay({ card_token: firstToken, idempotency_key: firstKey });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.failure_code, 'card_declined');
    for (let i = 1; i < SESSION_DECLINE_LIMIT; i++) {
      const pan = declinePans[i % declinePans.length]!;
      const declined = await payWith(t, tenant.client, pan);
      assert.equal(declined.status, 201, JSON.stringify(declined.body));
      assert.equal(declined.body.failure_code, DECLINES[pan]);
    }
    t.clock.advance(60_000);
    const untilExpiry = await secondsToExpiry(t, tenant.client);
    assert.equal(untilExpiry, t.config.sessionTtlSeconds - 60);

    const goodToken = await cardToken(t, PAN.visa);
    const wallet = await walletToken(t, 'apple_pay');
    const tables = ['payments', 'sandbox_charges', 'saved_cards', 'card_declines'];
    const before = await Promise.all(tables.map((table) => count(t, table)));
    const processorCalls = spyOnProcessor(ctx, t.app.ctx.processor);
    const attempts: [string, () => Promise<Answer>][] = [
      ['a good new card', () => tenant.client.pay({ card_token: goodToken })],
      ['the saved card', () => tenant.client.pay({ saved_card_id: saved.body.card_id })],
      ['a wallet', () => tenant.client.pay({ method: 'apple_pay', wallet_token: wallet })],
      ['an APM', () => tenant.client.pay({ method: 'alipay' })],
      ['a card save', () => tenant.client.saveCard(goodToken)],
    ];
    for (const [name, attempt] of attempts) {
      const answer = await attempt();
      assert.equal(answer.status, 429, `${name}: ${JSON.stringify(answer.body)}`);
      assertTooMany(answer, untilExpiry, SESSION_LIMIT);
    }
    // Replaying an earlier attempt answers that payment, as always.
    const replay = await tenant.client.pay({ card_token: firstToken, idempotency_key: firstKey });
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    assert.deepEqual(replay.body, first.body);
    assert.equal(processorCalls(), 0, 'nothing was sent to the processor');
    assert.deepEqual(await Promise.all(tables.map((table) => count(t, table))), before);

    // The same tenant in a new session may try again (5 of their 10 a day are left); the spy sees that call.
    const next = await tenant.login();
    assert.equal((await payWith(t, next, PAN.visa)).body.status, 'succeeded');
    assert.equal(processorCalls.charges(), 1);
  });

  it('after 10 declines in 24 h across sessions, the tenant is refused until the oldest is 24 h old; other tenants are not', async () => {
    const tenant = await newTenant(t, api);
    const start = t.clock.now().getTime();
    for (let s = 0; s < 5; s++) {
      const client = s === 0 ? tenant.client : await tenant.login();
      for (let i = 0; i < 2; i++) assert.equal((await payWith(t, client, DECLINED)).body.status, 'failed');
      t.clock.advance(HOUR);
    }
    assert.equal(await userDeclines(t, tenant.sessionId), USER_DECLINE_LIMIT);
    // 10 declines, the oldest 5 h old: 19 h to wait, whatever the new session's own expiry.
    const fresh = await tenant.login();
    const refused = await payWith(t, fresh, PAN.visa);
    assertTooMany(refused, 19 * 3600, USER_LIMIT);
    assert.equal(refused.body.detail.match(USER_LIMIT)[1], String(19 * 3600));
    assertTooMany(await fresh.saveCard(await cardToken(t, PAN.visa)), 19 * 3600, USER_LIMIT);
    assertTooMany(await fresh.pay({ method: 'alipay' }), 19 * 3600, USER_LIMIT);

    // Another tenant of the same platform, and the same person as a user of another platform, are not affected.
    const other = await newTenant(t, api);
    assert.equal((await payWith(t, other.client, PAN.visa)).body.status, 'succeeded');
    await otherApi.onboardOk(
      userBody({
        user_id: tenant.userId,
        email: tenant.email,
        tenant: [tenancyBody({ payment_reference: `OTHER-${tenant.userId}` })],
      }),
    );
    const elsewhere = clientOf(t, (await otherApi.loginOk(tenant.email)).token);
    assert.equal((await payWith(t, elsewhere, PAN.visa)).body.status, 'succeeded');

    // One second before the oldest decline is 24 h old: still refused; then allowed.
    t.clock.set(new Date(start + 24 * HOUR - 1000));
    assertTooMany(await payWith(t, await tenant.login(), PAN.visa), 1, USER_LIMIT);
    t.clock.advance(1000);
    assert.equal((await payWith(t, await tenant.login(), PAN.visa)).body.status, 'succeeded');
  });

  it('declined card saves count like declined payments', async () => {
    const tenant = await newTenant(t, api);
    for (let i = 0; i < SESSION_DECLINE_LIMIT; i++) {
      const saved = await tenant.client.saveCard(await cardToken(t, DECLINED));
      assert.equal(saved.status, 400);
      assert.deepEqual(saved.body, { card_token: ['Your card was declined.'] });
    }
    assert.equal(await count(t, 'card_declines WHERE session_id = $1', [tenant.sessionId]), 5);
    const untilExpiry = await secondsToExpiry(t, tenant.client);
    assertTooMany(await payWith(t, tenant.client, PAN.visa), untilExpiry, SESSION_LIMIT);
    assertTooMany(await tenant.client.saveCard(await cardToken(t, PAN.visa)), untilExpiry, SESSION_LIMIT);
  });

  it('declined payments with a saved card count', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.visa);
    const saved = await tenant.client.saveCard(token);
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    await issuerDeclines(t, token);
    for (let i = 0; i < SESSION_DECLINE_LIMIT; i++) {
      const declined = await tenant.client.pay({ saved_card_id: saved.body.card_id });
      assert.equal(declined.status, 201, JSON.stringify(declined.body));
      assert.equal(declined.body.failure_code, 'card_declined');
    }
    const refused = await tenant.client.pay({ saved_card_id: saved.body.card_id });
    assertTooMany(refused, await secondsToExpiry(t, tenant.client), SESSION_LIMIT);
  });

  it('3DS failures, wallet and APM "Fail" and successful payments do not count', async () => {
    const tenant = await newTenant(t, api);
    for (let i = 0; i < 3; i++) {
      const challenged = await payWith(t, tenant.client, PAN.threeDsAlways);
      assert.equal(challenged.body.status, 'requires_action');
      assert.equal((await answerChallenge(t, challenged.body.next_action.url, 'fail')).status, 202);
      await runJobs(t);
      assert.equal(
        (await tenant.client.payment(challenged.body.payment_id)).body.failure_code,
        'authentication_failed',
      );
    }
    for (const wallet of ['apple_pay', 'google_pay'] as const) {
      const failed = await tenant.client.pay({
        method: wallet,
        wallet_token: await walletToken(t, wallet, 'fail'),
      });
      assert.equal(failed.body.status, 'failed');
    }
    for (let i = 0; i < 2; i++) {
      const apm = await tenant.client.pay({ method: i === 0 ? 'alipay' : 'wechat_pay' });
      assert.equal((await answerChallenge(t, apm.body.next_action.url, 'fail')).status, 202);
      await runJobs(t);
      assert.equal((await tenant.client.payment(apm.body.payment_id)).body.failure_code, 'apm_declined');
    }
    // A successful payment in another session of the user.
    assert.equal((await payWith(t, await tenant.login(), PAN.visa)).body.status, 'succeeded');
    assert.equal(await userDeclines(t, tenant.sessionId), 0);
    // Four issuer declines after those eight failures still leave one attempt: it succeeds, and is not counted.
    for (let i = 0; i < SESSION_DECLINE_LIMIT - 1; i++) await payWith(t, tenant.client, DECLINED);
    assert.equal((await payWith(t, tenant.client, PAN.visa)).body.status, 'succeeded');
    assert.equal(await userDeclines(t, tenant.sessionId), SESSION_DECLINE_LIMIT - 1);
  });

  it('declined card saves racing in one session: no more than 5 reach the processor', async (ctx) => {
    const tenant = await newTenant(t, api);
    const tokens = await Promise.all(
      Array.from({ length: 2 * SESSION_DECLINE_LIMIT }, () => cardToken(t, DECLINED)),
    );
    const processorCalls = spyOnProcessor(ctx, t.app.ctx.processor);
    const answers = await Promise.all(tokens.map((token) => tenant.client.saveCard(token)));
    for (const answer of answers) {
      assert.ok(
        answer.status === 400 ||
          answer.body.error === 'too_many_attempts' ||
          answer.body.error === 'conflict',
        JSON.stringify(answer.body),
      );
    }
    assert.ok(
      processorCalls('saveCard') <= SESSION_DECLINE_LIMIT,
      `${processorCalls('saveCard')} card checks`,
    );
    const recorded = await count(t, 'card_declines WHERE session_id = $1', [tenant.sessionId]);
    assert.ok(recorded <= SESSION_DECLINE_LIMIT, `${recorded} declines in one session`);
  });

  it('declined payments racing in several sessions of one tenant: no more than 10 in 24 h', async (ctx) => {
    const tenant = await newTenant(t, api);
    for (const client of [tenant.client, await tenant.login()]) {
      for (let i = 0; i < SESSION_DECLINE_LIMIT - 1; i++) await payWith(t, client, DECLINED);
    }
    // 8 declines: two attempts left, six sessions try at once.
    const sessions = await Promise.all(Array.from({ length: 6 }, () => tenant.login()));
    const tokens = await Promise.all(sessions.map(() => cardToken(t, DECLINED)));
    const processorCalls = spyOnProcessor(ctx, t.app.ctx.processor);
    const answers = await Promise.all(sessions.map((client, i) => client.pay({ card_token: tokens[i] })));
    for (const answer of answers) {
      assert.ok(
        answer.body.status === 'failed' || answer.body.error === 'too_many_attempts',
        JSON.stringify(answer.body),
      );
    }
    assert.ok(processorCalls.charges() <= 2, `${processorCalls.charges()} charges after 8 declines`);
    const recorded = await userDeclines(t, tenant.sessionId);
    assert.ok(recorded <= USER_DECLINE_LIMIT, `${recorded} declines of one tenant in 24 h`);
  });
});

describe('card testing: scheduled charges', () => {
  it('declined off-session charges of a schedule do not count against the tenant', async () => {
    const { t, api } = await startPaymentApp();
    try {
      const ann = await scheduleTenant(t, api, { rent_due_day: 2 });
      const schedule = await scheduleOk(ann);
      assert.equal(schedule.next_due_date, '2026-03-02');
      await issuerDeclines(t, ann.cardToken);
      const schedules = integrationSchedules(t, api);
      let failed = 0;
      // The due date and its retries, each a declined charge.
      for (const asOf of ['2026-03-02', '2026-03-03', '2026-03-05']) {
        const run = await schedules.run(asOf);
        assert.equal(run.status, 200, JSON.stringify(run.body));
        failed += run.body.failed;
      }
      assert.equal(failed, 3);
      assert.equal(
        await count(t, "payments WHERE schedule_id = $1 AND failure_code = 'card_declined'", [
          schedule.schedule_id,
        ]),
        3,
      );
      assert.equal(await userDeclines(t, ann.sessionId), 0);
      // The tenant's own declines still count from the first.
      await payWith(t, ann.client, DECLINED);
      assert.equal(await userDeclines(t, ann.sessionId), 1);
    } finally {
      await t.close();
    }
  });
});

describe('card testing: the per-session request limit', () => {
  it(`allows ${CLIENT_RATE_LIMIT_BURST} requests at once per session, then 429 rate_limited until the window passes; other sessions go on`, async () => {
    const { t, api } = await startPaymentApp();
    try {
      const tenant = await newTenant(t, api);
      const other = await newTenant(t, api);
      // The limiter reads the app's clock, a fake that stands still: every request below falls in one window,
      // whatever the machine's speed.
      const answers: Answer[] = [];
      for (let i = 0; i <= CLIENT_RATE_LIMIT_BURST; i++)
        answers.push(await tenant.client.call('GET', '/session'));
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [...Array<number>(CLIENT_RATE_LIMIT_BURST).fill(200), 429],
      );
      const windowSeconds = CLIENT_RATE_LIMIT_BURST / CLIENT_RATE_LIMIT_PER_SECOND;
      const limited = answers.at(-1)!;
      assertError(
        limited,
        429,
        'rate_limited',
        new RegExp(
          `^Too many requests for this payment session: ${CLIENT_RATE_LIMIT_PER_SECOND} per second sustained, ` +
            `bursts of ${CLIENT_RATE_LIMIT_BURST}\\. Retry after ${windowSeconds} s\\.$`,
        ),
      );
      assert.equal(limited.headers['retry-after'], String(windowSeconds));
      // Payments too: refused before anything is charged.
      assertError(await payWith(t, tenant.client, PAN.visa), 429, 'rate_limited');
      assert.equal(await count(t, 'payments'), 0);
      // Another session is not affected.
      assert.equal((await other.client.call('GET', '/session')).status, 200);

      t.clock.advance(windowSeconds * 1000 - 1);
      const still = await tenant.client.call('GET', '/session');
      assertError(still, 429, 'rate_limited');
      assert.equal(still.headers['retry-after'], '1');
      t.clock.advance(1);
      assert.equal((await tenant.client.call('GET', '/session')).status, 200);
    } finally {
      await t.close();
    }
  });

  it('with REDIS_URL, two nodes share one session’s count', async () => {
    const database = await createTestDatabase();
    const a = await startTestApp({ database, config: { redisUrl: TEST_REDIS_URL } });
    const b = await startTestApp({
      database,
      db: a.db,
      clock: a.clock,
      config: { redisUrl: TEST_REDIS_URL },
    });
    try {
      const api = integrationApi(a, await a.createIntegrator(UNLIMITED));
      const tenant = await newTenant(a, api);
      let limited: Answer | undefined;
      // Burst + 1 requests of a fresh session, half on each node: neither node alone reaches the burst, so only a
      // shared count refuses one. Redis's window runs on real time: a round slow enough to outlast it is tried again.
      for (let round = 0; round < 5 && !limited; round++) {
        const onA = round === 0 ? tenant.client : await tenant.login();
        const onB = clientOf(b, onA.token);
        const answers = await Promise.all(
          Array.from({ length: CLIENT_RATE_LIMIT_BURST + 1 }, (_, i) =>
            (i % 2 === 0 ? onA : onB).call('GET', '/session'),
          ),
        );
        for (const answer of answers)
          assert.ok([200, 429].includes(answer.status), JSON.stringify(answer.body));
        limited = answers.find((answer) => answer.status === 429);
      }
      assert.ok(limited, 'the two nodes counted together');
      assertError(limited, 429, 'rate_limited', /^Too many requests for this payment session/);
      assert.match(String(limited.headers['retry-after']), /^[12]$/);
    } finally {
      await b.close();
      await a.close();
      await database.drop();
    }
  });
});
