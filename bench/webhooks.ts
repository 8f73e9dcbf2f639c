/** What the webhook bench cases need besides the app: a local receiver, and workers started on request. */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Worker } from '../src/platform/jobs/worker.ts';
import { serviceWorker } from '../src/runtime.ts';
import { recordEvent } from '../src/webhooks/record-event.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Arrival {
  /** Date.now() when the request's body had arrived. */
  at: number;
  eventId: string;
  /** The body's `timestamp`: when the event was recorded, in the same transaction as its payment. */
  recordedAt: number;
}

export interface BenchReceiver {
  url: string;
  arrivals: Arrival[];
  /** Resolves once `count` webhooks have arrived, rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** An integrator's endpoint at its fastest: answers 204 at once, in the bench's own process. */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const arrivals: Arrival[] = [];
  let wake: (() => void) | undefined;
  const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      arrivals.push({
        at,
        eventId: String(req.headers['webhook-id']),
        recordedAt: Date.parse(body.timestamp),
      });
      res.writeHead(204).end();
      wake?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (arrivals.length < count) {
        if (Date.now() > deadline) throw new Error(`${arrivals.length} of ${count} webhooks arrived in time`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A payment_success event's data as the payment engine records it (about 600 bytes of JSON). */
function paymentData(n: number): Record<string, unknown> {
  return {
    payment: {
      payment_id: `pay_bench${String(n).padStart(13, '0')}`,
      status: 'succeeded',
      pure_amount: '1250.00',
      fee: '0.00',
      amount: '1250.00',
      currency: 'GBP',
      method: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
      reference: `BENCH-${n}`,
      session_id: `ses_bench${String(n).padStart(13, '0')}`,
      schedule_id: null,
      installment_number: null,
      failure_code: null,
      failure_message: null,
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-01T09:00:00.000Z',
    },
    user_id: n,
    email: `tenant-${n}@bench.example`,
    payment_reference: `BENCH-${n}`,
  };
}

/** `count` payment_success events of one integrator, each with its pending delivery and job (no worker runs yet). */
export async function recordBacklog(
  app: FastifyInstance,
  integratorId: string,
  count: number,
): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    await app.ctx.db.transaction(async (tx) => {
      for (let n = start; n < Math.min(start + 500, count); n++) {
        await recordEvent(tx, app.ctx.clock, integratorId, 'payment_success', paymentData(n));
      }
    });
  }
}

/**
 * Bench-only routes on the bench server's app (never in the service): `POST /bench/webhooks/start` points the
 * integrator at the receiver and starts the worker, in this process (as `rentpay serve` runs it) or as
 * `worker_processes` separate `rentpay worker` processes (PostgreSQL only); `GET /bench/webhooks/attempts` gives
 * every attempt's latency.
 */
export function installBenchWorkerRoutes(app: FastifyInstance, integratorId: string): void {
  const workers: Worker[] = [];
  const processes: ChildProcess[] = [];
  const killProcesses = () => {
    for (const child of processes) child.kill('SIGKILL');
  };
  process.on('exit', killProcesses);
  app.post('/bench/webhooks/start', async (request) => {
    const { url, worker_processes: count } = request.body as { url: string; worker_processes: number };
    await app.ctx.db.query('UPDATE integrators SET webhook_url = $2 WHERE id = $1', [integratorId, url]);
    const config = { ...app.ctx.config, allowPrivateWebhookHosts: true };
    if (count === 0) {
      const worker = serviceWorker(config, app.ctx.db, app.log as unknown as Logger, app.ctx);
      workers.push(worker);
      worker.start();
      return { started: 'in-process' };
    }
    if (app.ctx.db.kind !== 'postgres') throw new Error('worker processes need PostgreSQL');
    for (let i = 0; i < count; i++) {
      processes.push(
        spawn(process.execPath, ['bin/rentpay.mjs', 'worker'], {
          cwd: REPO_ROOT,
          env: { ...process.env, ALLOW_PRIVATE_WEBHOOK_HOSTS: '1' },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
    }
    return { started: `${count} processes` };
  });
  app.get('/bench/webhooks/attempts', async () => {
    const rows = await app.ctx.db.query<{ latency_ms: number }>('SELECT latency_ms FROM webhook_attempts');
    return { latencies_ms: rows.map((row) => row.latency_ms) };
  });
  app.addHook('onClose', async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    for (const child of processes) child.kill('SIGTERM');
    await Promise.all(
      processes.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) resolve();
            else child.on('exit', () => resolve());
          }),
      ),
    );
  });
}
