import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from '../src/audit/actor.ts';
import type { CaseData } from './cases.ts';

/** Users are onboarded in requests of this many. */
export const ONBOARD_BATCH = 500;

/**
 * A user with one monthly tenancy (£1,250.00 on the 1st, a UK landlord account), as the benches onboard them;
 * `tenancy` changes its fields (reference, dates), `email` the login.
 */
export function benchUser(
  id: number,
  tenancy: Record<string, unknown> = {},
  email = `tenant-${id}@bench.example`,
): Record<string, unknown> {
  return {
    user_id: id,
    email,
    first_name: 'Bench',
    last_name: `Tenant ${id}`,
    phone_number: '+447700900123',
    date_of_birth: '1990-01-31',
    tenant: [
      {
        post_code: 'SW1A 1AA',
        address_1: `${id} Bench Street`,
        city: 'London',
        country: 'United Kingdom',
        is_primary: true,
        start_rent_date: '2026-01-01',
        end_rent_date: '2026-12-31',
        rent_due_day: 1,
        amount: '1250.00',
        frequency: 'every_1_month',
        is_active: true,
        payment_reference: `BENCH-${id}`,
        recipient_bank_sort_code: '12-34-56',
        recipient_bank_account_number: '12345678',
        recipient_bank_account_name: 'Landlord Ltd',
        agreement: 'https://docs.example/agreement.pdf',
        ...tenancy,
      },
    ],
    kyc: { status: 'pending' },
  };
}

/** The bench integrator's server token. */
export async function benchIntegrator(app: FastifyInstance): Promise<string> {
  // Limits far above what two cores can push, so the limiter counts but never rejects.
  const { serverToken } = await app.ctx.integrators.create(
    {
      name: 'bench',
      rate_limit_per_second: 1_000_000,
      rate_limit_burst: 2_000_000,
    },
    SYSTEM_ACTOR,
  );
  return serverToken;
}

/** A value the server process sent to the parent. */
export function required(data: CaseData, key: string): string {
  const value = data[key];
  if (value === undefined) throw new Error(`the server process did not send "${key}"`);
  return value;
}

/** Onboards `count` users with a live session each. */
export async function benchSessions(
  app: FastifyInstance,
  count: number,
): Promise<{ token: string; sessionId: string }[]> {
  await benchIntegrator(app);
  const [integrator] = await app.ctx.integrators.list();
  const users = Array.from({ length: count }, (_, i) => benchUser(i + 1));
  for (let start = 0; start < count; start += ONBOARD_BATCH) {
    await app.ctx.onboarding.onboard(
      integrator!.id,
      users.slice(start, start + ONBOARD_BATCH) as never,
      true,
      SYSTEM_ACTOR,
    );
  }
  const sessions: { token: string; sessionId: string }[] = [];
  for (let i = 1; i <= count; i++) {
    sessions.push(await app.ctx.sessions.login(integrator!.id, `tenant-${i}@bench.example`, undefined));
  }
  return sessions;
}
