/**
 * Hostile input on every route of every surface: NUL and the other C0 and C1 controls, lone surrogates, numbers
 * past int64 and float range, dates at and beyond the calendar's ends, 10,000-character values, percent-encoding,
 * path traversal, SQL, JSON, bidi overrides and emoji, in every path parameter, query value, declared header and
 * body field (strings where ids, integers and dates are expected too). The Integration, Client, Operator and Dashboard APIs
 * are enumerated from their OpenAPI documents as the running app serves them; the routes those documents leave
 * out (hosted page, sandbox processor, demo, docs, SDK, health, metrics, and on a Stripe app its event endpoint)
 * from the router itself. No request may answer 5xx, and an API route's 4xx is `{error, detail}` or field errors.
 * Every failure of a route is collected (with the error the app logged) and reported together.
 *
 * Deterministic: a fixed fast-check seed, a fake clock, no sleeps. Every constant hostile value is sent in every
 * path, query and header slot, a core subset of them in every body field, and generated values on top.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import Stripe from 'stripe';
import { buildApp } from '../../src/app.ts';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { DEMO_INTEGRATOR_NAME } from '../../src/demo/plugin.ts';
import { totpCode, totpStep } from '../../src/people/totp.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { UNLIMITED } from '../support/api-client.ts';
import { userBody } from '../support/fixtures.ts';
import {
  documentedOperations,
  fuzzAll,
  type OpenApiDocument,
  type Operation,
  routeKey,
  routesOf,
  slotsOf,
  type Target,
} from '../support/fuzz-requests.ts';
import type { Ids, Json } from '../support/fuzz-values.ts';
import { LogCapture, OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from '../support/helpers.ts';

const STRIPE_WEBHOOK_SECRET = 'whsec_rentpay_fuzz_endpoint';

// ---------------------------------------------------------------------------------------------------------
// The app, its tenants and ids
// ---------------------------------------------------------------------------------------------------------

describe('hostile input on every route never gets a 5xx', () => {
  let t: TestApp;
  let stripeApp: FastifyInstance;
  const stripeLogs = new LogCapture();
  let serverToken = '';
  let clientToken = '';
  const ids: Ids = {};
  const docs: Record<string, OpenApiDocument> = {};

  const call = async (
    method: HTTPMethods,
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => {
    const response = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    const json = String(response.headers['content-type']).startsWith('application/json');
    return (json ? response.json() : {}) as Record<string, unknown> & { data?: Record<string, string>[] };
  };
  const integrationAuth = () => tokenHeader(serverToken);
  const logIn = () =>
    call('POST', '/api/third-party/user-login/', integrationAuth(), { email: 'tenant@example.com' });
  const clientAuth = () => ({ authorization: `Bearer ${clientToken}` });
  const operatorAuth = () => ({ authorization: `Bearer ${OPERATOR_TOKEN}` });
  let dashboardUserId = '';
  let dashboardAuth: Record<string, string> = {};
  /** A session of the dashboard's fuzzing person, opened directly: sign-in itself is among the routes fuzzed. */
  const newDashboardSession = async () => {
    const opened = await t.app.ctx.dashboardSessions.open(t.db, dashboardUserId, 'totp', '127.0.0.1');
    dashboardAuth = {
      origin: new URL(t.config.publicUrl).origin,
      cookie: `${t.app.ctx.dashboardCookie.name}=${opened.token}`,
      'x-csrf-token': opened.csrfToken,
    };
  };

  before(async () => {
    t = await startTestApp({ config: { clientRateLimit: { burst: 1_000_000, windowMs: 1_000 } } });
    const integrator = await t.createIntegrator({
      ...UNLIMITED,
      fees: { card: { percent: '1.45', fixed: '0.00' } },
      // Rent reminders on, so that run-reminders does more than answer 0.
      reminder_days_before: 3,
    });
    serverToken = integrator.token;
    // The operator's routes act on another integrator than the one the Integration API is called as.
    ids.integrator_id = (await t.createIntegrator({ name: 'Fuzz target' })).id;
    await call('POST', '/api/third-party/onboarding/', integrationAuth(), userBody());
    const login = await logIn();
    clientToken = String(login.token);
    ids.session_id = String(login.session_id);
    const cardToken = async () => {
      const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '987' };
      return String((await call('POST', '/sandbox/tokens', {}, card)).token);
    };
    const saved = await call('POST', '/api/client/cards', clientAuth(), { card_token: await cardToken() });
    ids.card_id = String(saved.card_id);
    // Paid in a session of its own: a session takes one payment, and the fuzz's own may then go through.
    const payment = await call(
      'POST',
      '/api/client/payments',
      { authorization: `Bearer ${(await logIn()).token}` },
      {
        pure_amount: '1200.00',
        method: 'card',
        card_token: await cardToken(),
        idempotency_key: 'fuzz-setup',
      },
    );
    ids.payment_id = String(payment.payment_id);
    // A schedule (its id, and the sentence a new one must be authorised with, for the bodies of the others).
    const preview = await call('POST', '/api/client/schedules/preview', clientAuth(), {
      saved_card_id: ids.card_id,
    });
    ids.authorization_text = String((preview.authorization as { text: string }).text);
    const schedule = await call('POST', '/api/client/schedules', clientAuth(), {
      saved_card_id: ids.card_id,
      authorization_text: ids.authorization_text,
    });
    ids.schedule_id = String(schedule.schedule_id);
    const events = await call('GET', '/api/third-party/events/', integrationAuth());
    if (events.data?.[0]?.event_id) ids.event_id = events.data[0].event_id;
    const run = await call('POST', '/api/operator/payouts/runs', operatorAuth(), {});
    ids.payout_run_id = String(run.payout_run_id);
    // The demo creates its integrator on its first request; with the default rate limit the page's own calls
    // to the Integration API would soon answer 429 (and the demo 502) for reasons that are not the input's.
    await call('GET', '/demo/', {});
    const [demo] = await t.db.query<{ id: string }>('SELECT id FROM integrators WHERE name = $1', [
      DEMO_INTEGRATOR_NAME,
    ]);
    await call('PATCH', `/api/operator/integrators/${demo!.id}`, operatorAuth(), UNLIMITED);
    // A person of a platform of their own in the dashboard (its token rotations must not end serverToken).
    const team = (await t.createIntegrator({ name: 'Dashboard fuzz' })).id;
    const invited = await t.app.ctx.people.invite(SYSTEM_ACTOR, {
      team,
      email: 'fuzz@example.com',
      role: 'admin',
    });
    const invite = invited.link.split('#invite=')[1]!;
    const origin = new URL(t.config.publicUrl).origin;
    const offered = await call('POST', '/api/dashboard/setup/invite/', { origin }, { invite });
    const secret = String((offered.totp as { secret: string }).secret);
    await call(
      'POST',
      '/api/dashboard/setup/',
      { origin },
      {
        invite,
        password: 'fuzz password 123',
        totp: { secret, code: totpCode(secret, totpStep(t.clock.now())) },
      },
    );
    dashboardUserId = invited.user.id;
    await newDashboardSession();
    for (const surface of ['third-party', 'client', 'operator', 'dashboard']) {
      const response = await t.app.inject({ method: 'GET', url: `/api/${surface}/openapi.json` });
      assert.equal(response.statusCode, 200);
      docs[surface] = response.json();
    }
    // The Stripe processor's routes exist only on an app whose processor is Stripe: a second app on the same
    // database (no migrations to run), never reaching Stripe (its event endpoint only verifies and enqueues).
    stripeApp = await buildApp(
      {
        ...t.config,
        documentEncryptionKey: Buffer.alloc(32, 3),
        paymentProcessor: 'stripe',
        stripe: {
          secretKey: 'sk_test_rentpay_fuzz',
          publishableKey: 'pk_test_rentpay_fuzz',
          webhookSecret: STRIPE_WEBHOOK_SECRET,
          apiBase: 'http://127.0.0.1:9',
          jsUrl: 'http://127.0.0.1:9/js/v3/',
        },
      } as typeof t.config,
      { clock: t.clock, db: t.db, skipMigrations: true, logger: createLogger('info', stripeLogs) },
    );
    await stripeApp.ready();
  });

  after(async () => {
    await stripeApp?.close();
    await t?.close();
  });

  const main = (): Target => ({ app: t.app, logs: t.logs });

  it('the Integration API (every operation of /api/third-party/openapi.json)', async (ctx) => {
    const ops = documentedOperations(docs['third-party']!, integrationAuth, ids);
    for (const op of ops) {
      if (op.route.endsWith('/rotate-token/')) {
        // A rotation that goes through (e.g. grace 0) ends the token every other request uses: adopt the new one.
        op.answered = (status, body) => {
          if (status === 201) serverToken = String(JSON.parse(body).token);
        };
      }
    }
    assert.ok(ops.length >= 20, `only ${ops.length} operations in the document`);
    await fuzzAll(ctx, main(), ops);
  });

  it('the Client API (every operation of /api/client/openapi.json)', async (ctx) => {
    const ops = documentedOperations(docs.client!, clientAuth, ids);
    for (const op of ops) {
      if (op.method === 'POST' && op.route === '/api/client/payments') {
        // A session takes one payment (then 409), and one a failure left half-done may be locked: after anything
        // but a plain 400 refusal, the next request logs in again.
        let token = clientToken;
        let used = false;
        op.auth = async () => {
          if (used) token = String((await logIn()).token);
          used = false;
          return { authorization: `Bearer ${token}` };
        };
        op.answered = (status) => {
          if (status !== 400) used = true;
        };
      }
    }
    assert.ok(ops.length >= 10, `only ${ops.length} operations in the document`);
    await fuzzAll(ctx, main(), ops);
  });

  it('the Operator API (every operation of /api/operator/openapi.json)', async (ctx) => {
    const ops = documentedOperations(docs.operator!, operatorAuth, ids);
    assert.ok(ops.length >= 20, `only ${ops.length} operations in the document`);
    await fuzzAll(ctx, main(), ops);
  });

  it('the Dashboard API (every operation of /api/dashboard/openapi.json)', async (ctx) => {
    const ops = documentedOperations(docs.dashboard!, () => dashboardAuth, ids);
    for (const op of ops) {
      // Signing out (here or everywhere) ends the session the other requests use: open another.
      if (op.route.endsWith('/sign-out/')) {
        op.answered = async (status) => {
          if (status === 204) await newDashboardSession();
        };
      }
    }
    assert.ok(ops.length >= 20, `only ${ops.length} operations in the document`);
    await fuzzAll(ctx, main(), ops);
  });

  /** Base values of the routes no document shows, and the query values each reads. */
  const hiddenOperation = (method: string, route: string): Operation => {
    const pathValues: Record<string, string> = {
      wallet: 'apple_pay',
      charge_id: 'ch_fuzz',
      name: 'x',
      file: 'x',
      '*': method === 'POST' && route.startsWith('/demo') ? 'webhooks' : '',
    };
    const query: Record<string, string> =
      route === '/third-party'
        ? { token: clientToken, session_id: ids.session_id!, sdk: '1', origin: 'https://platform.example' }
        : route === '/sandbox/wallet/:wallet'
          ? { amount: '1217.40' }
          : {};
    const headers: Record<string, string> = {};
    let body: Json | undefined;
    if (route === '/sandbox/tokens')
      body = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '987' };
    if (route === '/sandbox/wallet/tokens') body = { wallet: 'apple_pay', outcome: 'authorise' };
    if (route === '/demo/*' && method === 'POST') {
      Object.assign(headers, {
        'webhook-id': 'msg_fuzz',
        'webhook-timestamp': '1772355600',
        'webhook-signature': 'v1,x',
      });
      body = { type: 'payment_success', timestamp: '2026-03-01T09:00:00Z', data: {} };
    }
    let finish: Operation['finish'];
    if (route === '/api/processors/stripe/webhook') {
      headers['stripe-signature'] = 'signed';
      body = {
        id: 'evt_fuzz',
        object: 'event',
        type: 'payment_intent.succeeded',
        api_version: '2025-01-01',
        created: 1_772_355_600,
        data: {
          object: { id: 'pi_fuzz', object: 'payment_intent', metadata: { payment_id: ids.payment_id! } },
        },
        livemode: false,
      };
      // A valid signature over the body actually sent, unless the signature is the slot under test.
      finish = (h, payload, slot) => {
        if (!(slot.part === 'header' && slot.name === 'stripe-signature')) {
          h['stripe-signature'] = Stripe.webhooks.generateTestHeaderString({
            payload: payload ?? '',
            secret: STRIPE_WEBHOOK_SECRET,
          });
        }
      };
    }
    const base: Omit<Operation, 'slots'> = {
      method: method as HTTPMethods,
      route,
      pathValues,
      query,
      headers,
      body,
      auth: () => ({}),
      api: route.startsWith('/api/'),
      ...(finish ? { finish } : {}),
    };
    return { ...base, slots: slotsOf(base, { unreadQuery: method === 'GET' }) };
  };

  it('the routes no document shows: hosted page, sandbox processor, demo, docs, SDK, health, metrics', async (ctx) => {
    const documented = new Set(
      Object.values(docs).flatMap((doc) =>
        Object.entries(doc.paths).flatMap(([route, methods]) =>
          Object.keys(methods).map((m) => routeKey(m, route)),
        ),
      ),
    );
    const routes = routesOf(t.app).filter(
      (r) => r.method !== 'HEAD' && !documented.has(routeKey(r.method, r.route)),
    );
    const page = await t.app.inject({ method: 'GET', url: '/third-party' });
    assert.notEqual(page.statusCode, 503, 'The payment page is not built: run "npm run build:web" first.');
    const names = routes.map((r) => `${r.method} ${r.route}`);
    for (const expected of [
      'GET /third-party',
      'GET /sandbox/3ds/:charge_id',
      'POST /sandbox/tokens',
      'GET /demo/*',
    ]) {
      assert.ok(names.includes(expected), `${expected} is not among the routes read: ${names.join(', ')}`);
    }
    await fuzzAll(
      ctx,
      main(),
      routes.map((r) => hiddenOperation(r.method, r.route)),
    );
  });

  it("the Stripe processor's routes (its event endpoint, its return page) on a Stripe app", async (ctx) => {
    const known = new Set(routesOf(t.app).map((r) => `${r.method} ${r.route}`));
    const routes = routesOf(stripeApp).filter(
      (r) => r.method !== 'HEAD' && !known.has(`${r.method} ${r.route}`),
    );
    assert.ok(
      routes.some((r) => r.route === '/api/processors/stripe/webhook'),
      `no Stripe event endpoint among ${routes.map((r) => r.route).join(', ')}`,
    );
    await fuzzAll(
      ctx,
      { app: stripeApp, logs: stripeLogs },
      routes.map((r) => hiddenOperation(r.method, r.route)),
    );
  });
});
