import type { FastifyInstance } from 'fastify';

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
}

export interface BenchCase {
  name: string;
  description: string;
  /** What the rate counts: requests for load cases, e.g. users for a batch. */
  unit?: string;
  /** Runs in the server process once the real app is built, before it listens. */
  setup(app: FastifyInstance): Promise<CaseData>;
  /** Load cases: the request autocannon sends over and over, from the parent. */
  request?(data: CaseData): BenchRequest;
  /** Batch cases: a fixed piece of work the parent sends and times instead of an autocannon load. */
  batch?(baseUrl: string, data: CaseData): Promise<BatchResult>;
}

async function benchIntegrator(app: FastifyInstance): Promise<string> {
  // Limits far above what two cores can push, so the limiter counts but never rejects.
  const { serverToken } = await app.ctx.integrators.create({
    name: 'bench',
    rate_limit_per_second: 1_000_000,
    rate_limit_burst: 2_000_000,
  });
  return serverToken;
}

function benchUser(id: number): Record<string, unknown> {
  return {
    user_id: id,
    email: `tenant-${id}@bench.example`,
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
      },
    ],
    kyc: { status: 'pending' },
  };
}

const ONBOARD_TOTAL = 10_000;
const ONBOARD_BATCH = 500;

function required(data: CaseData, key: string): string {
  const value = data[key];
  if (value === undefined) throw new Error(`the server process did not send "${key}"`);
  return value;
}

/** Add new cases here; `npm run bench -- --case <name>` runs a subset. */
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
      'POST /api/third-party/user-login/: auth, then one statement finds the tenancy and opens a session',
    async setup(app) {
      const serverToken = await benchIntegrator(app);
      const [integrator] = await app.ctx.integrators.list();
      await app.ctx.onboarding.onboard(integrator!.id, [benchUser(1) as never], false);
      return { serverToken, email: 'tenant-1@bench.example' };
    },
    request(data) {
      return {
        method: 'POST',
        path: '/api/third-party/user-login/',
        headers: {
          authorization: `Token ${required(data, 'serverToken')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ email: required(data, 'email') }),
      };
    },
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
];
