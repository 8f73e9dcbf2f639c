/** The recurring-rent bench: many schedules due today, charged by the real scheduler in two workers. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { jobHandlers } from '../src/jobs.ts';
import { systemClock } from '../src/platform/clock/clock.ts';
import { type PeriodicTicker, startPeriodicJob } from '../src/platform/jobs/periodic.ts';
import { Worker } from '../src/platform/jobs/worker.ts';
import { schedulesRunJob } from '../src/schedules/jobs/schedules-run.ts';
import { utcDate } from '../src/shared/dates.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `count` users, each with a monthly tenancy, a session, an active saved card (all of `cardToken`, a sandbox token)
 * and an active schedule whose next due date is today (UTC), written in a few set-based statements.
 */
export async function seedDueSchedules(
  app: FastifyInstance,
  integratorId: string,
  count: number,
  cardToken: string,
): Promise<void> {
  const now = new Date();
  const today = utcDate(now);
  const statements = [
    `INSERT INTO users (id, integrator_id, external_id, email, email_key, first_name, last_name, phone_number,
                        date_of_birth, created_at, updated_at)
     SELECT 'usr_bench' || g, $1, g, 'tenant-' || g || '@bench.example', 'tenant-' || g || '@bench.example', 'Bench',
            'Tenant ' || g, '+447700900123', '1990-01-31', $2, $2
       FROM generate_series(1, $3::int) g`,
    `INSERT INTO tenancies (id, integrator_id, user_id, post_code, address_1, city, country, is_primary, start_rent_date,
                            end_rent_date, rent_due_day, amount_pence, frequency, is_active, payment_reference,
                            recipient_bank_sort_code, recipient_bank_account_number, recipient_bank_account_name,
                            agreement_url, created_at, updated_at)
     SELECT 'ten_bench' || g, $1, 'usr_bench' || g, 'SW1A 1AA', g || ' Bench Street', 'London', 'United Kingdom', true,
            '2026-01-01', '2099-12-31', extract(day FROM $4::date), 125000, 'every_1_month', true, 'BENCH-' || g,
            '12-34-56', '12345678', 'Landlord Ltd', 'https://docs.example/agreement.pdf', $2, $2
       FROM generate_series(1, $3::int) g`,
    `INSERT INTO sessions (id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at, created_at)
     SELECT 'ses_bench' || g, $1, 'usr_bench' || g, 'ten_bench' || g, md5('bench-session-' || g), $2, $2, $2
       FROM generate_series(1, $3::int) g`,
    `INSERT INTO saved_cards (id, integrator_id, user_id, processor, processor_token, source_token_sha256, brand, last4,
                              exp_month, exp_year, status, is_default, created_at, updated_at)
     SELECT 'card_bench' || g, $1, 'usr_bench' || g, 'sandbox', $4, md5('bench-card-' || g), 'visa', '4242', 12, 2030,
            'active', true, $2, $2
       FROM generate_series(1, $3::int) g`,
    `INSERT INTO schedules (id, integrator_id, user_id, tenancy_id, session_id, saved_card_id, status, installment_plan,
                            next_due_date, created_at, updated_at)
     SELECT 'sch_bench' || g, $1, 'usr_bench' || g, 'ten_bench' || g, 'ses_bench' || g, 'card_bench' || g, 'active',
            false, $4::date, $2, $2
       FROM generate_series(1, $3::int) g`,
  ];
  // $1 the integrator, $2 now, $3 the count, then each statement's own $4 (PostgreSQL wants no unused parameter).
  const fourth = [undefined, today, undefined, cardToken, today];
  for (const [i, sql] of statements.entries()) {
    await app.ctx.db.query(sql, [integratorId, now, count, ...(fourth[i] === undefined ? [] : [fourth[i]])]);
  }
}

/**
 * Bench-only routes (never in the service): `POST /bench/schedules/start` starts the scheduler: `worker_processes`
 * `rentpay worker` processes (PostgreSQL), or with 0 two workers and a ticker in this process (PGlite);
 * `GET /bench/schedules/progress` counts the charges and gives each one's time from its due date being reached to its
 * payment.
 */
export function installBenchSchedulerRoutes(app: FastifyInstance): void {
  const workers: Worker[] = [];
  const processes: ChildProcess[] = [];
  let ticker: PeriodicTicker | undefined;
  process.on('exit', () => {
    for (const child of processes) child.kill('SIGKILL');
  });
  app.post('/bench/schedules/start', async (request) => {
    const { worker_processes: count } = request.body as { worker_processes: number };
    if (count === 0) {
      for (let i = 0; i < 2; i++) {
        const worker = new Worker({
          db: app.ctx.db,
          clock: systemClock,
          log: app.log as unknown as Logger,
          handlers: jobHandlers(app.ctx.config, app.ctx),
          concurrency: app.ctx.config.workerConcurrency,
          pollIntervalMs: 50,
        });
        workers.push(worker);
        worker.start();
      }
      ticker = startPeriodicJob(app.ctx.db, systemClock, app.log as unknown as Logger, schedulesRunJob);
      return { started: 'in-process' };
    }
    for (let i = 0; i < count; i++) {
      processes.push(
        spawn(process.execPath, ['bin/rentpay.mjs', 'worker'], {
          cwd: REPO_ROOT,
          env: { ...process.env, LOG_LEVEL: 'warn', WORKER_POLL_INTERVAL_MS: '50' },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
    }
    return { started: `${count} processes` };
  });
  app.get('/bench/schedules/progress', async (request) => {
    const [row] = await app.ctx.db.query<{ succeeded: number; failed: number; first: Date; last: Date }>(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              min(created_at) AS first, max(created_at) AS last
         FROM payments WHERE schedule_id IS NOT NULL`,
    );
    const withLatencies = (request.query as { latencies?: string }).latencies === '1';
    const latencies = withLatencies
      ? await app.ctx.db.query<{ ms: number }>(
          `SELECT (extract(epoch FROM p.created_at - c.created_at) * 1000)::float8 AS ms
             FROM schedule_charges c JOIN payments p ON p.id = c.last_payment_id`,
        )
      : [];
    return {
      succeeded: row!.succeeded,
      failed: row!.failed,
      first_at: row!.first ? new Date(row!.first).getTime() : null,
      last_at: row!.last ? new Date(row!.last).getTime() : null,
      latencies_ms: latencies.map((l) => Number(l.ms)),
    };
  });
  app.addHook('onClose', async () => {
    await ticker?.stop();
    await Promise.all(workers.map((worker) => worker.stop()));
    for (const child of processes) child.kill('SIGTERM');
    await Promise.all(
      processes.map(
        (child) =>
          new Promise<void>((resolve) =>
            child.exitCode !== null ? resolve() : child.on('exit', () => resolve()),
          ),
      ),
    );
  });
}

interface Progress {
  succeeded: number;
  failed: number;
  first_at: number | null;
  last_at: number | null;
  latencies_ms: number[];
}

/** Starts the workers, waits until `count` charges succeeded, and answers the batch result. */
export async function chargeDueSchedules(baseUrl: string, count: number, workerProcesses: number) {
  const started = Date.now();
  const response = await fetch(`${baseUrl}/bench/schedules/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ worker_processes: workerProcesses }),
  });
  if (!response.ok) throw new Error(`starting the workers: ${response.status} ${await response.text()}`);
  const deadline = Date.now() + 1_800_000;
  let progress: Progress;
  for (;;) {
    progress = (await (await fetch(`${baseUrl}/bench/schedules/progress`)).json()) as Progress;
    if (progress.failed > 0) throw new Error(`${progress.failed} charges failed`);
    if (progress.succeeded >= count) break;
    if (Date.now() > deadline) throw new Error(`${progress.succeeded} of ${count} charged in time`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (progress.succeeded !== count) throw new Error(`${progress.succeeded} charges for ${count} due dates`);
  const final = (await (await fetch(`${baseUrl}/bench/schedules/progress?latencies=1`)).json()) as Progress;
  const first = final.first_at!;
  const last = final.last_at!;
  return {
    units: count,
    seconds: (last - first) / 1000,
    latenciesMs: final.latencies_ms,
    extra: {
      worker_processes: workerProcesses,
      first_charge_ms: first - started,
      all_charged_s: Math.round((last - started) / 100) / 10,
    },
  };
}
