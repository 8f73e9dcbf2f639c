/**
 * The dashboard's lists at a platform's size: 10,000 tenancies with 10 payments each (100,000 payments), searched by
 * a signed-in person as the payments page does.
 */
import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from '../src/audit/actor.ts';
import { totpCode, totpStep } from '../src/people/totp.ts';
import type { BenchRequest, CaseData } from './cases.ts';
import { seedPayments } from './ledger.ts';
import { benchIntegrator, benchUser, ONBOARD_BATCH, required } from './users.ts';

export const DASHBOARD_TENANCIES = 10_000;
export const DASHBOARD_PAYMENTS_PER_TENANCY = 10;
/** The tenant whose payments the search finds (by the beginning of their email). */
const SEARCHED_TENANT = 4_321;
const PASSWORD = 'correct horse battery staple';

/** A person of the platform's team, set up and signed in through the dashboard API: their session cookie. */
async function signedInFinancePerson(app: FastifyInstance, integratorId: string): Promise<string> {
  const origin = new URL(app.ctx.config.publicUrl).origin;
  const invited = await app.ctx.people.invite(SYSTEM_ACTOR, {
    team: integratorId,
    email: 'finance@bench.example',
    role: 'finance',
  });
  const invite = invited.link.split('#invite=')[1];
  const looked = await app.inject({
    method: 'POST',
    url: '/api/dashboard/setup/invite/',
    headers: { origin },
    payload: { invite },
  });
  const secret = (looked.json() as { totp: { secret: string } }).totp.secret;
  const setUp = await app.inject({
    method: 'POST',
    url: '/api/dashboard/setup/',
    headers: { origin },
    payload: {
      invite,
      password: PASSWORD,
      totp: { secret, code: totpCode(secret, totpStep(app.ctx.clock.now())) },
    },
  });
  if (setUp.statusCode !== 201) throw new Error(`set-up answered ${setUp.statusCode}: ${setUp.body}`);
  const cookie = setUp.headers['set-cookie'];
  return String(Array.isArray(cookie) ? cookie[0] : cookie).split(';')[0]!;
}

export async function dashboardSearchSetup(app: FastifyInstance): Promise<CaseData> {
  await benchIntegrator(app);
  const [integrator] = await app.ctx.integrators.list();
  for (let start = 0; start < DASHBOARD_TENANCIES; start += ONBOARD_BATCH) {
    const users = Array.from({ length: ONBOARD_BATCH }, (_, i) => benchUser(start + i + 1));
    await app.ctx.onboarding.onboard(integrator!.id, users as never, false, SYSTEM_ACTOR);
  }
  await seedPayments(app, integrator!.id, DASHBOARD_PAYMENTS_PER_TENANCY, '2026-01-01');
  await app.ctx.db.query('ANALYZE');
  return {
    cookie: await signedInFinancePerson(app, integrator!.id),
    origin: new URL(app.ctx.config.publicUrl).origin,
  };
}

/** The payments page's search for one tenant by the beginning of their email: their newest 25 payments. */
export function dashboardSearchRequest(data: CaseData): BenchRequest {
  return {
    method: 'GET',
    path: `/api/dashboard/payments/?email=${encodeURIComponent(`tenant-${SEARCHED_TENANT}@`)}&limit=25`,
    headers: { cookie: required(data, 'cookie'), origin: required(data, 'origin') },
  };
}
