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

export interface BenchCase {
  name: string;
  description: string;
  /** Runs in the server process once the real app is built, before it listens. */
  setup(app: FastifyInstance): Promise<CaseData>;
  /** Runs in the parent: the request autocannon sends over and over. */
  request(data: CaseData): BenchRequest;
}

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
      // Limits far above what two cores can push, so the limiter counts but never rejects.
      const { serverToken } = await app.ctx.integrators.create({
        name: 'bench',
        rate_limit_per_second: 1_000_000,
        rate_limit_burst: 2_000_000,
      });
      return { serverToken };
    },
    request(data) {
      return {
        method: 'GET',
        path: '/api/third-party/integrator/',
        headers: { authorization: `Token ${required(data, 'serverToken')}` },
      };
    },
  },
];
