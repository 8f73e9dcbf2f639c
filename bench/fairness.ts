/**
 * The fairness case's server side (bench-only routes, never in the service): integrator A's webhook endpoint accepts
 * connections and never answers (each attempt takes its whole 15 s), integrator B's is the parent's fast receiver;
 * the in-process worker delivers both.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { SYSTEM_ACTOR } from '../src/audit/actor.ts';
import type { Worker } from '../src/platform/jobs/worker.ts';
import { serviceWorker } from '../src/runtime.ts';
import { recordEvent } from '../src/webhooks/record-event.ts';
import type { BenchCase } from './cases.ts';
import { percentile } from './percentile.ts';
import { recordBacklog, startBenchReceiver } from './webhooks.ts';

/** A host that takes the connection and the request and never says a word. */
async function startBlackHole(): Promise<{ url: string; inFlight(): number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hooks`,
    // An attempt holds its connection until its time limit ends it: the open connections are the attempts in flight.
    inFlight: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * `POST /bench/fairness/start {url}`: B's endpoint is `url`, A's the black hole; starts the worker.
 * `POST /bench/fairness/record {integrator: "a" | "b", count}`: A's events in one backlog, B's one per transaction.
 * `GET /bench/fairness/running`: how many of A's delivery jobs the worker holds (`running`), and how many attempts
 * are waiting on A's endpoint now (`in_flight`).
 */
export function installFairnessRoutes(app: FastifyInstance, ids: { a: string; b: string }): void {
  const workers: Worker[] = [];
  let hole: Awaited<ReturnType<typeof startBlackHole>> | undefined;
  app.post('/bench/fairness/start', async (request) => {
    const { url } = request.body as { url: string };
    hole = await startBlackHole();
    await app.ctx.db.query('UPDATE integrators SET webhook_url = $2 WHERE id = $1', [ids.a, hole.url]);
    await app.ctx.db.query('UPDATE integrators SET webhook_url = $2 WHERE id = $1', [ids.b, url]);
    const config = { ...app.ctx.config, allowPrivateWebhookHosts: true };
    const worker = serviceWorker(config, app.ctx.db, app.log as unknown as Logger, app.ctx);
    workers.push(worker);
    worker.start();
    return { per_integrator: config.workerConcurrencyPerIntegrator, concurrency: config.workerConcurrency };
  });
  app.post('/bench/fairness/record', async (request) => {
    const { integrator, count } = request.body as { integrator: 'a' | 'b'; count: number };
    if (integrator === 'a') {
      await recordBacklog(app, ids.a, count);
    } else {
      for (let n = 0; n < count; n++) {
        await app.ctx.db.transaction((tx) =>
          recordEvent(tx, app.ctx.clock, ids.b, 'payment_success', { payment: { payment_id: `pay_b${n}` } }),
        );
      }
    }
    return { recorded: count };
  });
  app.get('/bench/fairness/running', async () => {
    const [row] = await app.ctx.db.query<{ running: number }>(
      "SELECT count(*)::int AS running FROM jobs WHERE status = 'running' AND fair_key = $1",
      [ids.a],
    );
    return { running: row?.running ?? 0, in_flight: hole?.inFlight() ?? 0 };
  });
  app.addHook('onClose', async () => {
    // The attempts in hand wait on the black hole: closing it ends them, so the workers can stop.
    await hole?.close();
    await Promise.all(workers.map((worker) => worker.stop()));
  });
}

const A_BACKLOG = 1_000;
const B_EVENTS = 100;

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

export const webhooksFairnessCase: BenchCase = {
  name: 'webhooks-fairness',
  description: `integrator A: ${A_BACKLOG} webhooks to an endpoint that never answers; integrator B: ${B_EVENTS} to a fast one, recorded one by one while A's attempts hold their slots (in-process worker, default settings). Latencies: B's, from commit to arrival; B alone first, as the reference (p99_b_alone_ms)`,
  unit: 'webhooks',
  async setup(app) {
    const a = await app.ctx.integrators.create({ name: 'bench A (endpoint never answers)' }, SYSTEM_ACTOR);
    const b = await app.ctx.integrators.create({ name: 'bench B (healthy endpoint)' }, SYSTEM_ACTOR);
    installFairnessRoutes(app, { a: a.integrator.id, b: b.integrator.id });
    return {};
  },
  async batch(baseUrl) {
    const receiver = await startBenchReceiver();
    try {
      const latencies = (from: number) =>
        receiver.arrivals.slice(from).map((arrival) => arrival.at - arrival.recordedAt);
      await call(baseUrl, 'POST', '/bench/fairness/start', { url: receiver.url });
      await call(baseUrl, 'POST', '/bench/fairness/record', { integrator: 'b', count: B_EVENTS });
      await receiver.waitFor(B_EVENTS, 60_000);
      const alone = latencies(0);

      await call(baseUrl, 'POST', '/bench/fairness/record', { integrator: 'a', count: A_BACKLOG });
      // Wait until A's attempts hold every slot A may have: the contention B must get through.
      const deadline = Date.now() + 30_000;
      while (((await call(baseUrl, 'GET', '/bench/fairness/running')) as { running: number }).running === 0) {
        if (Date.now() > deadline) throw new Error('none of A’s deliveries started');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const began = performance.now();
      await call(baseUrl, 'POST', '/bench/fairness/record', { integrator: 'b', count: B_EVENTS });
      await receiver.waitFor(2 * B_EVENTS, 120_000);
      const seconds = (performance.now() - began) / 1000;
      const contended = latencies(B_EVENTS);
      const stillHeld = ((await call(baseUrl, 'GET', '/bench/fairness/running')) as { in_flight: number })
        .in_flight;
      return {
        units: B_EVENTS,
        seconds,
        latenciesMs: contended,
        extra: {
          p99_b_alone_ms: percentile(alone, 0.99),
          p99_b_with_a_ms: percentile(contended, 0.99),
          a_attempts_in_flight: stillHeld,
        },
      };
    } finally {
      await receiver.close();
    }
  },
};
