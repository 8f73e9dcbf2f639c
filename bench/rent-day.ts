/**
 * Rent day: every tenant of one platform pays within one minute. Each tenant is a user-login by the platform's
 * server, the hosted page's Client API calls on load, a card payment, and the payment_success webhook to the
 * platform's endpoint. Arrivals are open-loop (tenant i starts at i × 60 s / N, whatever the server's answers),
 * so a slow server shows as latency and a growing backlog, never as a politely slower arrival rate.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from '../src/audit/actor.ts';
import type { BatchResult, BenchCase, CaseData } from './cases.ts';
import { startBenchWorkers, successCardToken } from './cases.ts';
import { percentile } from './percentile.ts';
import { benchIntegrator, benchUser, ONBOARD_BATCH, required } from './users.ts';
import { installBenchWorkerRoutes, startBenchReceiver } from './webhooks.ts';

const TENANTS = 10_000;
/** PGlite serves one connection in the server's own process: 10,000 in a minute is far past what it sustains. */
const TENANTS_PGLITE = 2_000;
const ARRIVAL_WINDOW_MS = 60_000;
/** After the last payment's answer, how long the webhooks may take to arrive before the case gives up. */
const WEBHOOK_WAIT_MS = 300_000;
/**
 * Keep-alive connections to each server process, as a load balancer keeps to a node: requests beyond them wait
 * for one (and that wait counts in their latency), instead of 10,000 connections opened at once.
 */
const CONNECTIONS = 256;

type Step = 'login' | 'page' | 'payment';

interface Tenant {
  /** Milliseconds each step took, as the tenant's browser or the platform's server waited for it. */
  steps: Partial<Record<Step, number>>;
  /** The payment's status in its answer: `succeeded`, or `processing` when the processor's outcome came late. */
  paid?: string;
  failed?: string;
}

async function setup(app: FastifyInstance): Promise<CaseData> {
  const serverToken = await benchIntegrator(app);
  const [integrator] = await app.ctx.integrators.list();
  const count = app.ctx.db.kind === 'postgres' ? TENANTS : TENANTS_PGLITE;
  for (let start = 1; start <= count; start += ONBOARD_BATCH) {
    const users = Array.from({ length: Math.min(ONBOARD_BATCH, count - start + 1) }, (_, i) =>
      benchUser(start + i),
    );
    await app.ctx.onboarding.onboard(integrator!.id, users as never, false, SYSTEM_ACTOR);
  }
  // The agreement fetches onboarding queued would fail (no such host) and send document_failed webhooks.
  await app.ctx.db.query("DELETE FROM jobs WHERE kind = 'document.fetch'");
  installBenchWorkerRoutes(app, integrator!.id);
  return { serverToken, count: String(count), cardToken: await successCardToken(app) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/** One request on the case's connections; throws unless it answered `expected`. */
function call(
  url: string,
  expected: number,
  init: { method?: string; headers: Record<string, string>; body?: string },
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { agent, method: init.method ?? 'GET', headers: init.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === expected) resolve(JSON.parse(text) as Record<string, unknown>);
          else
            reject(
              new Error(`${new URL(url).pathname} answered ${response.statusCode}: ${text.slice(0, 160)}`),
            );
        });
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

/** One tenant's rent day, timed step by step; a failure ends the tenant's run, never another's. */
async function payRent(baseUrl: string, data: CaseData, n: number): Promise<Tenant> {
  const tenant: Tenant = { steps: {} };
  const timed = async <T>(step: Step, work: () => Promise<T>): Promise<T> => {
    const sent = performance.now();
    const result = await work();
    tenant.steps[step] = performance.now() - sent;
    return result;
  };
  try {
    const login = await timed('login', () =>
      call(`${baseUrl}/api/third-party/user-login/`, 200, {
        method: 'POST',
        headers: {
          authorization: `Token ${required(data, 'serverToken')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ email: `tenant-${n}@bench.example` }),
      }),
    );
    const client = { authorization: `Bearer ${String(login.token)}` };
    // What the hosted page asks on load (web/page/App.tsx): the session, then the saved cards if they are on.
    await timed('page', async () => {
      const session = await call(`${baseUrl}/api/client/session`, 200, { headers: client });
      if ((session.features as { savedCards?: boolean } | undefined)?.savedCards) {
        await call(`${baseUrl}/api/client/cards`, 200, { headers: client });
      }
    });
    const payment = await timed('payment', () =>
      call(`${baseUrl}/api/client/payments`, 201, {
        method: 'POST',
        headers: { ...client, 'content-type': 'application/json', 'idempotency-key': `rent-day-${n}` },
        body: JSON.stringify({
          pure_amount: '1250.00',
          method: 'card',
          card_token: required(data, 'cardToken'),
        }),
      }),
    );
    tenant.paid = String(payment.status);
  } catch (error) {
    tenant.failed = error instanceof Error ? error.message : String(error);
  }
  return tenant;
}

function p50p99(name: string, values: number[]): Record<string, number> {
  return { [`${name}_p50_ms`]: percentile(values, 0.5), [`${name}_p99_ms`]: percentile(values, 0.99) };
}

async function batch(baseUrl: string, data: CaseData, baseUrls = [baseUrl]): Promise<BatchResult> {
  const count = Number(required(data, 'count'));
  const receiver = await startBenchReceiver();
  try {
    await startBenchWorkers(baseUrl, receiver.url, 0);
    const began = Date.now();
    const started = performance.now();
    let lateMs = 0;
    const tenants: Promise<Tenant>[] = [];
    for (let i = 0; i < count; i++) {
      const due = (i * ARRIVAL_WINDOW_MS) / count;
      const wait = due - (performance.now() - started);
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      lateMs = Math.max(lateMs, performance.now() - started - due);
      tenants.push(payRent(baseUrls[i % baseUrls.length]!, data, i + 1));
    }
    const done = await Promise.all(tenants);
    const failures = done.filter((t) => t.failed !== undefined);
    for (const message of [...new Set(failures.map((t) => t.failed))].slice(0, 5)) {
      process.stderr.write(`  rent-day: a tenant failed: ${message}\n`);
    }
    const paid = done.filter((t) => t.paid === 'succeeded').length;
    const processing = done.filter((t) => t.paid === 'processing').length;
    if (paid + processing === 0) throw new Error(`no tenant paid: ${failures[0]?.failed ?? 'no answer'}`);
    // A processing payment's webhook follows once its outcome is known; a retried delivery arrives twice.
    const { arrivals } = receiver;
    const distinctArrivals = () => new Set(arrivals.map((a) => a.eventId)).size;
    const deadline = Date.now() + WEBHOOK_WAIT_MS;
    while (distinctArrivals() < paid + processing && Date.now() < deadline) {
      await receiver.waitFor(arrivals.length + 1, deadline - Date.now()).catch(() => undefined);
    }
    const distinct = distinctArrivals();
    const last = arrivals.length > 0 ? Math.max(...arrivals.map((a) => a.at)) : Date.now();
    const seconds = (last - began) / 1000;
    const of = (step: Step) => done.flatMap((t) => (t.steps[step] === undefined ? [] : [t.steps[step]]));
    return {
      units: count,
      seconds,
      // The row's p50/p99: a tenant's whole wait, from user-login sent to the payment's answer.
      latenciesMs: done.flatMap((t) =>
        t.failed === undefined ? [(t.steps.login ?? 0) + (t.steps.page ?? 0) + (t.steps.payment ?? 0)] : [],
      ),
      extra: {
        tenants: count,
        ...p50p99('login', of('login')),
        ...p50p99('page', of('page')),
        ...p50p99('payment', of('payment')),
        ...p50p99(
          'webhook',
          arrivals.map((a) => a.at - a.recordedAt),
        ),
        paid,
        processing,
        webhooks: distinct,
        failed: failures.length,
        all_through: paid === count && distinct === count ? 1 : 0,
        last_webhook_s: Math.round(seconds * 10) / 10,
        arrivals_late_max_ms: Math.round(lateMs),
      },
    };
  } finally {
    await receiver.close();
  }
}

export const rentDayCase: BenchCase = {
  name: 'rent-day',
  description:
    `${TENANTS} tenants of one platform (${TENANTS_PGLITE} on PGlite) arriving evenly over one minute, open-loop: ` +
    'user-login, the hosted page’s Client API calls on load (session, saved cards), a card payment, and its ' +
    'payment_success webhook to a receiver (in-process worker); p50/p99 per step, the time from the first login ' +
    'to the last webhook, and whether every tenant got through',
  unit: 'tenants',
  budgetSeconds: 900,
  setup,
  batch,
};
