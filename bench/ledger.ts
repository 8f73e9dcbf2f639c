import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from '../src/audit/actor.ts';
import type { BatchResult, CaseData } from './cases.ts';
import { benchUser } from './users.ts';

export const LEDGER_YEARS = 5;
export const PAYOUT_PAYMENTS = 10_000;
const PAYOUT_TENANCIES = 1_000;

const ledgerUser = (id: number, reference: string, start: string, end: string) =>
  benchUser(
    id,
    { payment_reference: reference, start_rent_date: start, end_rent_date: end },
    `ledger-${id}@bench.example`,
  );

/**
 * `perTenancy` succeeded card payments for each of the integrator's tenancies, one a month from `firstMonth`, written
 * straight into the tables (a session each): what years of rent leave behind, in seconds.
 */
export async function seedPayments(
  app: FastifyInstance,
  integratorId: string,
  perTenancy: number,
  firstMonth: string,
) {
  await app.ctx.db.query(
    `WITH t AS (SELECT id, user_id FROM tenancies WHERE integrator_id = $1),
     s AS (
       INSERT INTO sessions (id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at, created_at)
       SELECT 'ses_bench_' || t.id || '_' || g, $1, t.user_id, t.id, md5(t.id || g), $2::timestamptz,
              $2::timestamptz, $2::timestamptz
         FROM t CROSS JOIN generate_series(1, $3) AS g
       RETURNING id, user_id, tenancy_id)
     INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                           amount_pence, method, reference, idempotency_key, processor, created_at, updated_at,
                           funds_available_at)
     SELECT 'pay_bench_' || substr(s.id, 11), $1, s.id, s.user_id, s.tenancy_id, 'succeeded', 125000, 0, 125000,
            'card', 'BENCH', 'k', 'sandbox',
            $2::timestamptz + (split_part(s.id, '_', 5)::int - 1) * interval '1 month',
            $2::timestamptz + (split_part(s.id, '_', 5)::int - 1) * interval '1 month',
            $2::timestamptz + (split_part(s.id, '_', 5)::int - 1) * interval '1 month'
       FROM s`,
    [integratorId, `${firstMonth}T09:00:00Z`, perTenancy],
  );
}

/** The ledger case: one tenancy with five years of monthly rent, every month paid. */
export async function ledgerSetup(app: FastifyInstance, serverToken: string): Promise<CaseData> {
  const [integrator] = await app.ctx.integrators.list();
  await app.ctx.onboarding.onboard(
    integrator!.id,
    [ledgerUser(1, 'LEDGER-5Y', '2021-12-01', '2026-11-30') as never],
    false,
    SYSTEM_ACTOR,
  );
  await seedPayments(app, integrator!.id, LEDGER_YEARS * 12, '2021-12-01');
  return { serverToken };
}

/** The payout-run case: 1,000 tenancies with 10 settled payments each; a bench route makes the run. */
export async function payoutRunSetup(app: FastifyInstance): Promise<CaseData> {
  const [integrator] = await app.ctx.integrators.list();
  for (let start = 0; start < PAYOUT_TENANCIES; start += 500) {
    const users = Array.from({ length: 500 }, (_, i) =>
      ledgerUser(start + i + 1, `PAYOUT-${start + i + 1}`, '2026-01-01', '2026-12-31'),
    );
    await app.ctx.onboarding.onboard(integrator!.id, users as never, false, SYSTEM_ACTOR);
  }
  await seedPayments(app, integrator!.id, PAYOUT_PAYMENTS / PAYOUT_TENANCIES, '2026-01-01');
  app.post('/bench/payouts/run', async () => {
    global.gc?.();
    const before = process.memoryUsage();
    const started = performance.now();
    const run = await app.ctx.payouts.createRun(SYSTEM_ACTOR, '2026-11-30');
    const seconds = (performance.now() - started) / 1000;
    const after = process.memoryUsage();
    const payments = run.items.reduce((sum, item) => sum + item.payment_ids.length, 0);
    return {
      seconds,
      payouts: run.items.length,
      payments,
      total_pence: Number(run.run.total_pence),
      rss_mb: Math.round(after.rss / 1e6),
      heap_growth_mb: Math.round((after.heapUsed - before.heapUsed) / 1e6),
    };
  });
  return {};
}

export async function payoutRunBatch(baseUrl: string): Promise<BatchResult> {
  const response = await fetch(`${baseUrl}/bench/payouts/run`, { method: 'POST' });
  const result = (await response.json()) as {
    seconds: number;
    payouts: number;
    payments: number;
    total_pence: number;
    rss_mb: number;
    heap_growth_mb: number;
  };
  if (result.payments !== PAYOUT_PAYMENTS || result.total_pence !== PAYOUT_PAYMENTS * 125_000) {
    throw new Error(`the run paid ${result.payments} payments, £${result.total_pence / 100}`);
  }
  return {
    units: result.payments,
    seconds: result.seconds,
    latenciesMs: [result.seconds * 1000],
    extra: { payouts: result.payouts, rss_mb: result.rss_mb, heap_growth_mb: result.heap_growth_mb },
  };
}
