import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from '../src/audit/actor.ts';
import { SandboxProcessor } from '../src/processors/sandbox/processor.ts';
import {
  DASHBOARD_PAYMENTS_PER_TENANCY,
  DASHBOARD_TENANCIES,
  dashboardSearchRequest,
  dashboardSearchSetup,
} from './dashboard.ts';
import { webhooksFairnessCase } from './fairness.ts';
import { LEDGER_YEARS, ledgerSetup, PAYOUT_PAYMENTS, payoutRunBatch, payoutRunSetup } from './ledger.ts';
import { paymentPageCase } from './page.ts';
import { rentDayCase } from './rent-day.ts';
import { chargeDueSchedules, installBenchSchedulerRoutes, seedDueSchedules } from './schedules.ts';
import { benchIntegrator, benchSessions, benchUser, ONBOARD_BATCH, required } from './users.ts';
import { installBenchWorkerRoutes, recordBacklog, startBenchReceiver } from './webhooks.ts';

/** What a case's setup hands from the server process to the parent (sent as JSON over IPC). */
export type CaseData = Record<string, string>;

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status a correct response has; checked once before the load starts. Default 200. */
  expectStatus?: number;
}

/** A batch case's outcome: how many units (e.g. users) it processed and each request's latency. */
export interface BatchResult {
  units: number;
  seconds: number;
  latenciesMs: number[];
  /** Figures that are not a rate, printed beside it (e.g. page weight). */
  extra?: Record<string, number>;
}

export interface BenchCase {
  name: string;
  description: string;
  /** What the rate counts: requests for load cases, e.g. users for a batch. */
  unit?: string;
  /** A case measuring a hand-written equivalent; when both run, the table shows this case's rate as a ratio of it. */
  yardstick?: string;
  /** The server process (a file in bench/); default app-server.ts, the real app. */
  server?: string;
  /** Load cases: concurrent connections, when the case's users are fewer than --connections (shown in notes). */
  connections?: number;
  /** Runs in the server process once the real app is built, before it listens. */
  setup(app: FastifyInstance): Promise<CaseData>;
  /** Load cases: the request autocannon sends over and over, from the parent. */
  request?(data: CaseData): BenchRequest;
  /**
   * Batch cases: a fixed piece of work the parent sends and times instead of an autocannon load. With
   * --serve-processes n, `baseUrls` holds every server process's address (the first is `baseUrl`, where setup ran).
   */
  batch?(baseUrl: string, data: CaseData, baseUrls?: string[]): Promise<BatchResult>;
  /**
   * Batch cases: the same kind of work, unmeasured, before the batch (as a load case's --warmup), so the batch
   * times a server whose code has been compiled for it rather than its first minutes.
   */
  warmup?(baseUrl: string, data: CaseData, baseUrls?: string[]): Promise<void>;
  /** Seconds a run of the case may take besides --duration and --warmup (set-up and a fixed workload). */
  budgetSeconds?: number;
}

const ONBOARD_TOTAL = 10_000;

/** A token for the sandbox's success card, to pay with in the batch. */
export async function successCardToken(app: FastifyInstance): Promise<string> {
  if (!(app.ctx.processor instanceof SandboxProcessor))
    throw new Error('the bench needs the sandbox processor');
  const { token } = await app.ctx.processor.tokenise({
    number: '4242424242424242',
    exp_month: 12,
    exp_year: 2030,
    cvc: '123',
  });
  return token;
}

/** One card payment of £1,250.00 through the Client API, as the page makes it; throws unless it succeeded. */
export async function payByCard(baseUrl: string, userToken: string, cardToken: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/client/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${userToken}`,
      'content-type': 'application/json',
      'idempotency-key': 'bench-1',
    },
    body: JSON.stringify({ pure_amount: '1250.00', method: 'card', card_token: cardToken }),
  });
  const payment = (await response.json()) as { status?: string };
  if (response.status !== 201 || payment.status !== 'succeeded') {
    throw new Error(`payment answered ${response.status}: ${JSON.stringify(payment).slice(0, 300)}`);
  }
}

/** Runs `work` over `items` with at most `concurrency` in flight; returns each call's latency. */
async function inFlight<T>(
  items: T[],
  concurrency: number,
  work: (item: T, lane: number) => Promise<void>,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async (_, lane) => {
    while (next < items.length) {
      const item = items[next++]!;
      const sent = performance.now();
      await work(item, lane);
      latencies.push(performance.now() - sent);
    }
  });
  await Promise.all(lanes);
  return latencies;
}

const CARD_PAYMENTS = 2_000;
/** Payments before the measured ones, each in its own session too. */
const CARD_WARMUP_PAYMENTS = 2_000;
const PAYMENT_CONCURRENCY = 50;
const WEBHOOK_BACKLOG = 20_000;
const WEBHOOK_LATENCY_PAYMENTS = 200;
const DUE_SCHEDULES = 100_000;
const DUE_SCHEDULES_PGLITE = 10_000;

async function cardPaymentSetup(app: FastifyInstance): Promise<CaseData> {
  const sessions = (await benchSessions(app, CARD_WARMUP_PAYMENTS + CARD_PAYMENTS)).map(
    (session) => session.token,
  );
  return {
    warmupSessions: JSON.stringify(sessions.slice(0, CARD_WARMUP_PAYMENTS)),
    sessions: JSON.stringify(sessions.slice(CARD_WARMUP_PAYMENTS)),
    cardToken: await successCardToken(app),
  };
}

async function cardPaymentWarmup(baseUrl: string, data: CaseData, baseUrls = [baseUrl]): Promise<void> {
  const sessions = JSON.parse(required(data, 'warmupSessions')) as string[];
  const cardToken = required(data, 'cardToken');
  await inFlight(sessions, PAYMENT_CONCURRENCY, (userToken, lane) =>
    payByCard(baseUrls[lane % baseUrls.length]!, userToken, cardToken),
  );
}

async function cardPaymentBatch(baseUrl: string, data: CaseData, baseUrls = [baseUrl]): Promise<BatchResult> {
  const sessions = JSON.parse(required(data, 'sessions')) as string[];
  const cardToken = required(data, 'cardToken');
  const began = performance.now();
  // With several server processes, each lane keeps to one of them, as a load balancer's connections would.
  const latenciesMs = await inFlight(sessions, PAYMENT_CONCURRENCY, (userToken, lane) =>
    payByCard(baseUrls[lane % baseUrls.length]!, userToken, cardToken),
  );
  return { units: sessions.length, seconds: (performance.now() - began) / 1000, latenciesMs };
}

async function webhooksBacklogSetup(app: FastifyInstance): Promise<CaseData> {
  await benchIntegrator(app);
  const [integrator] = await app.ctx.integrators.list();
  // Deliveries are written only for an integrator with a URL; the receiver's comes with the start.
  await app.ctx.db.query('UPDATE integrators SET webhook_url = $2 WHERE id = $1', [
    integrator!.id,
    'http://127.0.0.1:9/not-yet',
  ]);
  await recordBacklog(app, integrator!.id, WEBHOOK_BACKLOG);
  installBenchWorkerRoutes(app, integrator!.id);
  return { workerProcesses: process.env.BENCH_WEBHOOK_WORKERS || '0' };
}

async function webhooksBacklogBatch(baseUrl: string, data: CaseData): Promise<BatchResult> {
  const receiver = await startBenchReceiver();
  try {
    const workerProcesses = Number(required(data, 'workerProcesses'));
    const started = Date.now();
    await startBenchWorkers(baseUrl, receiver.url, workerProcesses);
    await receiver.waitFor(WEBHOOK_BACKLOG, 600_000);
    const { arrivals } = receiver;
    const distinct = new Set(arrivals.map((a) => a.eventId)).size;
    if (distinct !== WEBHOOK_BACKLOG) throw new Error(`${distinct} distinct events arrived`);
    const first = arrivals[0]!.at;
    const last = arrivals.at(-1)!.at;
    const attempts = (await (await fetch(`${baseUrl}/bench/webhooks/attempts`)).json()) as {
      latencies_ms: number[];
    };
    return {
      units: WEBHOOK_BACKLOG,
      seconds: (last - first) / 1000,
      latenciesMs: attempts.latencies_ms,
      extra: {
        worker_processes: workerProcesses,
        first_arrival_ms: first - started,
        all_arrived_s: Math.round((last - started) / 100) / 10,
      },
    };
  } finally {
    await receiver.close();
  }
}

export async function startBenchWorkers(
  baseUrl: string,
  url: string,
  workerProcesses: number,
): Promise<void> {
  const response = await fetch(`${baseUrl}/bench/webhooks/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, worker_processes: workerProcesses }),
  });
  if (!response.ok) throw new Error(`starting the workers: ${response.status} ${await response.text()}`);
}

/** Add new cases here; `npm run bench -- --case <name>` runs a subset. */
async function userLoginSetup(app: FastifyInstance): Promise<CaseData> {
  const serverToken = await benchIntegrator(app);
  const [integrator] = await app.ctx.integrators.list();
  await app.ctx.onboarding.onboard(integrator!.id, [benchUser(1) as never], false, SYSTEM_ACTOR);
  return { serverToken, email: 'tenant-1@bench.example' };
}

function userLoginRequest(data: CaseData): BenchRequest {
  return {
    method: 'POST',
    path: '/api/third-party/user-login/',
    headers: { authorization: `Token ${required(data, 'serverToken')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: required(data, 'email') }),
  };
}

export const CASES: readonly BenchCase[] = [
  {
    name: 'integration-get-integrator',
    description: 'GET /api/third-party/integrator/ with a server token (auth + rate limit + one lookup)',
    async setup(app) {
      return { serverToken: await benchIntegrator(app) };
    },
    request(data) {
      return {
        method: 'GET',
        path: '/api/third-party/integrator/',
        headers: { authorization: `Token ${required(data, 'serverToken')}` },
      };
    },
  },
  {
    name: 'user-login',
    description:
      'POST /api/third-party/user-login/: the server token (from memory once read), then one statement (shared by ' +
      'logins arriving together) finds the tenancy and opens a session',
    yardstick: 'user-login-reference',
    setup: userLoginSetup,
    request: userLoginRequest,
  },
  {
    name: 'user-login-reference',
    description:
      'the yardstick for user-login: a hand-written durable login in one statement on bare Fastify, same database, ' +
      'pool and data (bench/reference-login-server.ts)',
    server: 'reference-login-server.ts',
    setup: userLoginSetup,
    request: userLoginRequest,
  },
  {
    name: 'ledger',
    description: `GET /api/third-party/ledger/ of a tenancy with ${LEDGER_YEARS} years of monthly rent, every month paid`,
    async setup(app) {
      return ledgerSetup(app, await benchIntegrator(app));
    },
    request(data) {
      return {
        method: 'GET',
        path: '/api/third-party/ledger/?payment_reference=LEDGER-5Y&as_of=2026-11-30',
        headers: { authorization: `Token ${required(data, 'serverToken')}` },
      };
    },
  },
  {
    name: 'statement-pdf',
    description:
      `GET /api/third-party/statements/ as a PDF: the last 12 months of a tenancy with ${LEDGER_YEARS} years of ` +
      'monthly rent, every month paid, one connection (p50 is the time to build one statement)',
    connections: 1,
    async setup(app) {
      return ledgerSetup(app, await benchIntegrator(app));
    },
    request(data) {
      return {
        method: 'GET',
        path: '/api/third-party/statements/?payment_reference=LEDGER-5Y',
        headers: { authorization: `Token ${required(data, 'serverToken')}` },
      };
    },
  },
  {
    name: 'dashboard-payments-search',
    description:
      `GET /api/dashboard/payments/?email=<a tenant's email beginning>, signed in, among ` +
      `${DASHBOARD_TENANCIES * DASHBOARD_PAYMENTS_PER_TENANCY} payments of ${DASHBOARD_TENANCIES} tenancies`,
    // A platform's staff, not its tenants: ten people searching at the same moment.
    connections: 10,
    setup: dashboardSearchSetup,
    request: dashboardSearchRequest,
  },
  {
    name: 'dashboard-home',
    description:
      `GET /api/dashboard/home/ (collection, arrears of every tenancy, payouts waiting, webhook health) of a ` +
      `platform with ${DASHBOARD_TENANCIES} tenancies and ${DASHBOARD_TENANCIES * DASHBOARD_PAYMENTS_PER_TENANCY} payments`,
    // One person opening the home page: its p99 is the time they wait.
    connections: 1,
    setup: dashboardSearchSetup,
    request: (data) => ({ ...dashboardSearchRequest(data), path: '/api/dashboard/home/' }),
  },
  {
    name: 'payout-run',
    description: `one payout run over ${PAYOUT_PAYMENTS} settled payments of 1,000 tenancies; seconds and memory`,
    unit: 'payments',
    async setup(app) {
      await benchIntegrator(app);
      return payoutRunSetup(app);
    },
    batch: (baseUrl) => payoutRunBatch(baseUrl),
  },
  {
    name: 'onboarding-10k',
    description: `${ONBOARD_TOTAL} new users with one tenancy each, in sequential requests of ${ONBOARD_BATCH}`,
    unit: 'users',
    async setup(app) {
      return { serverToken: await benchIntegrator(app) };
    },
    async batch(baseUrl, data) {
      const headers = {
        authorization: `Token ${required(data, 'serverToken')}`,
        'content-type': 'application/json',
      };
      const bodies: string[] = [];
      for (let start = 1; start <= ONBOARD_TOTAL; start += ONBOARD_BATCH) {
        bodies.push(JSON.stringify(Array.from({ length: ONBOARD_BATCH }, (_, i) => benchUser(start + i))));
      }
      const latenciesMs: number[] = [];
      const began = performance.now();
      for (const body of bodies) {
        const sent = performance.now();
        const response = await fetch(`${baseUrl}/api/third-party/onboarding/`, {
          method: 'POST',
          headers,
          body,
        });
        const text = await response.text();
        if (response.status !== 201)
          throw new Error(`onboarding answered ${response.status}: ${text.slice(0, 300)}`);
        latenciesMs.push(performance.now() - sent);
      }
      return { units: ONBOARD_TOTAL, seconds: (performance.now() - began) / 1000, latenciesMs };
    },
  },
  {
    name: 'card-payment',
    description: `${CARD_PAYMENTS} card payments (success card) through POST /api/client/payments, ${PAYMENT_CONCURRENCY} in flight, each in its own session, after ${CARD_WARMUP_PAYMENTS} unmeasured ones`,
    unit: 'payments',
    yardstick: 'card-payment-reference',
    setup: cardPaymentSetup,
    warmup: cardPaymentWarmup,
    batch: cardPaymentBatch,
  },
  {
    name: 'card-payment-reference',
    description:
      'the yardstick for card-payment: a hand-written durable card payment in one statement (payment, sandbox ' +
      'charge, event, and a delivery with its job when the integrator has a webhook URL) on bare Fastify, same ' +
      'database, pool and data (bench/reference-payment-server.ts)',
    unit: 'payments',
    server: 'reference-payment-server.ts',
    setup: cardPaymentSetup,
    warmup: cardPaymentWarmup,
    batch: cardPaymentBatch,
  },
  paymentPageCase,
  {
    name: 'webhooks-backlog-20k',
    description: `${WEBHOOK_BACKLOG} pending payment_success webhooks to a local receiver, by the in-process worker (BENCH_WEBHOOK_WORKERS=n: n \`rentpay worker\` processes, PostgreSQL only); rate from the first arrival to the last, p50/p99 per attempt`,
    unit: 'deliveries',
    yardstick: 'webhooks-backlog-reference',
    setup: webhooksBacklogSetup,
    batch: webhooksBacklogBatch,
  },
  {
    name: 'webhooks-backlog-reference',
    description:
      'the yardstick for webhooks-backlog-20k: a bare loop on the same database and backlog that claims pending ' +
      'deliveries in batches with FOR UPDATE SKIP LOCKED, POSTs each signed body with keep-alive at the worker’s ' +
      'per-integrator concurrency to the same receiver, and marks them delivered (bench/reference-webhooks-server.ts)',
    unit: 'deliveries',
    server: 'reference-webhooks-server.ts',
    setup: webhooksBacklogSetup,
    batch: webhooksBacklogBatch,
  },
  {
    name: 'webhook-latency',
    description: `${WEBHOOK_LATENCY_PAYMENTS} card payments one at a time on an idle queue (in-process worker, default poll interval): p50/p99 from the payment's commit (its event's timestamp) to its webhook's arrival`,
    unit: 'webhooks',
    async setup(app) {
      const sessions = (await benchSessions(app, WEBHOOK_LATENCY_PAYMENTS)).map((session) => session.token);
      const [integrator] = await app.ctx.integrators.list();
      // The agreement fetches onboarding queued would fail (no such host) and retry: the queue must be idle.
      await app.ctx.db.query("DELETE FROM jobs WHERE kind = 'document.fetch'");
      installBenchWorkerRoutes(app, integrator!.id);
      return { sessions: JSON.stringify(sessions), cardToken: await successCardToken(app) };
    },
    async batch(baseUrl, data) {
      const sessions = JSON.parse(required(data, 'sessions')) as string[];
      const cardToken = required(data, 'cardToken');
      const receiver = await startBenchReceiver();
      try {
        await startBenchWorkers(baseUrl, receiver.url, 0);
        const began = performance.now();
        for (const [i, userToken] of sessions.entries()) {
          // Idle between payments, so each finds the worker asleep at a different point of its poll interval.
          await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
          await payByCard(baseUrl, userToken, cardToken);
          await receiver.waitFor(i + 1, 10_000);
        }
        const seconds = (performance.now() - began) / 1000;
        return {
          units: sessions.length,
          seconds,
          latenciesMs: receiver.arrivals.map((a) => a.at - a.recordedAt),
        };
      } finally {
        await receiver.close();
      }
    },
  },
  {
    name: 'recurring-charges-100k',
    description: `$DUE_SCHEDULESschedules due today charged by the scheduler (sandbox success card, off-session) with two workers: two \`rentpay worker\` processes on PostgreSQL, two in-process workers on PGlite ($DUE_SCHEDULES_PGLITEschedules there); rate from the first payment to the last, p50/p99 from a due date reached to its payment`,
    unit: 'charges',
    async setup(app) {
      await benchIntegrator(app);
      const [integrator] = await app.ctx.integrators.list();
      const postgres = app.ctx.db.kind === 'postgres';
      const count = postgres ? DUE_SCHEDULES : DUE_SCHEDULES_PGLITE;
      await seedDueSchedules(app, integrator!.id, count, await successCardToken(app));
      installBenchSchedulerRoutes(app);
      return { count: String(count), workerProcesses: postgres ? '2' : '0' };
    },
    batch: (baseUrl, data) =>
      chargeDueSchedules(baseUrl, Number(required(data, 'count')), Number(required(data, 'workerProcesses'))),
  },
  webhooksFairnessCase,
  rentDayCase,
];
