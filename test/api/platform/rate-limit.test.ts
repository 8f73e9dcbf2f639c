import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createTestDatabase,
  OPERATOR_TOKEN,
  startTestApp,
  TEST_REDIS_URL,
  type TestApp,
  tokenHeader,
} from '../../support/helpers.ts';

const WHOAMI = '/api/third-party/integrator/';

async function hit(t: TestApp, token: string) {
  return t.app.inject({ method: 'GET', url: WHOAMI, headers: tokenHeader(token) });
}

describe('rate limiting per integrator', () => {
  it('allows the burst, then answers 429 with Retry-After and the error shape; other integrators are unaffected', async () => {
    const t = await startTestApp();
    try {
      const limited = await t.createIntegrator({ rate_limit_per_second: 1, rate_limit_burst: 5 });
      const other = await t.createIntegrator();
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await hit(t, limited.token)).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
      const refused = await hit(t, limited.token);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error, 'rate_limited');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.equal(
        refused.json().detail,
        `Rate limit exceeded: 1 requests per second sustained, bursts of 5. Retry after ${retryAfter} s (Retry-After); ` +
          'for a higher limit, ask the operator.',
      );
      assert.ok(retryAfter >= 1 && retryAfter <= 5, `Retry-After ${retryAfter}`);
      assert.equal((await hit(t, other.token)).statusCode, 200);
    } finally {
      await t.close();
    }
  });

  it('the defaults are 100/s sustained with bursts of 200; the window follows the app clock', async () => {
    // The app's clock is a fake that moves only when told, so the 2 s window (burst / rate) cannot run out while
    // the requests are in flight, however slow the machine.
    const t = await startTestApp();
    try {
      const { token } = await t.createIntegrator();
      const burst = await Promise.all(Array.from({ length: 210 }, () => hit(t, token)));
      assert.equal(burst.filter((r) => r.statusCode === 200).length, 200);
      assert.equal(burst.filter((r) => r.statusCode === 429).length, 10);
      t.clock.advance(1_999);
      assert.equal((await hit(t, token)).statusCode, 429, 'the window is still open 1.999 s in');
      t.clock.advance(1);
      assert.equal((await hit(t, token)).statusCode, 200, 'a new window 2 s after the first request');
    } finally {
      await t.close();
    }
  });

  it('an unauthenticated request is refused before it counts against anyone', async () => {
    const t = await startTestApp();
    try {
      const { token } = await t.createIntegrator({ rate_limit_per_second: 1, rate_limit_burst: 2 });
      for (let i = 0; i < 5; i++) {
        assert.equal((await t.app.inject({ method: 'GET', url: WHOAMI })).statusCode, 401);
      }
      assert.equal((await hit(t, token)).statusCode, 200);
    } finally {
      await t.close();
    }
  });

  it('the operator can change the limit; a burst below the rate is refused', async () => {
    const t = await startTestApp();
    try {
      const { id, token } = await t.createIntegrator({ rate_limit_per_second: 1, rate_limit_burst: 1 });
      const patch = (payload: Record<string, unknown>) =>
        t.app.inject({
          method: 'PATCH',
          url: `/api/operator/integrators/${id}`,
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
          payload,
        });
      const refused = await patch({ rate_limit_per_second: 10, rate_limit_burst: 5 });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json(), {
        rate_limit_burst: ['Ensure this value is at least rate_limit_per_second (10).'],
      });
      const raised = await patch({ rate_limit_per_second: 10 });
      assert.equal(raised.statusCode, 200);
      assert.equal(raised.json().rate_limit_burst, 20, 'the burst grows with the rate');
      assert.equal((await hit(t, token)).statusCode, 200);
      assert.equal((await hit(t, token)).statusCode, 200);
    } finally {
      await t.close();
    }
  });

  it('with REDIS_URL, two nodes share one limit', async () => {
    const database = await createTestDatabase();
    const a = await startTestApp({ database, config: { redisUrl: TEST_REDIS_URL } });
    // A second node: its own app and rate limiter, the same database.
    const b = await startTestApp({ database, db: a.db, config: { redisUrl: TEST_REDIS_URL } });
    try {
      const { token } = await a.createIntegrator({ rate_limit_per_second: 1, rate_limit_burst: 4 });
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await hit(i % 2 === 0 ? a : b, token)).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    } finally {
      await b.close();
      await a.close();
      await database.drop();
    }
  });

  it('with REDIS_URL unreachable, the API starts and answers without a limit', async () => {
    // Port 1 refuses connections at once, as a stopped Redis would.
    const t = await startTestApp({ config: { redisUrl: 'redis://127.0.0.1:1' } });
    try {
      const { token } = await t.createIntegrator({ rate_limit_per_second: 1, rate_limit_burst: 1 });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await hit(t, token)).statusCode);
      assert.deepEqual(statuses, [200, 200, 200]);
    } finally {
      await t.close();
    }
  });
});
