/** Recovering from a leaked server token: rotation by the newest token only, reissue, suspension (API and CLI). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { AUTH_CACHE_TTL_MS } from '../../src/integrators/service.ts';
import { enqueueSchedulerRun } from '../../src/schedules/jobs/schedules-run.ts';
import { type Api, integrationApi, send, UNLIMITED } from '../support/api-client.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import {
  createTestDatabase,
  OPERATOR_TOKEN,
  runCli,
  runJobs,
  startTestApp,
  type TestApp,
  tokenHeader,
} from '../support/helpers.ts';
import { newTenant, PAN } from '../support/payment-client.ts';
import { scheduleOk, scheduleTenant } from '../support/schedule-helpers.ts';
import { Receiver } from '../support/webhook-receiver.ts';

const OPERATOR = { authorization: `Bearer ${OPERATOR_TOKEN}` };

function whoami(t: TestApp, token: string) {
  return send(t, { method: 'GET', url: '/api/third-party/integrator/', headers: tokenHeader(token) });
}

function rotate(t: TestApp, token: string, grace: number) {
  return send(t, {
    method: 'POST',
    url: '/api/third-party/rotate-token/',
    headers: tokenHeader(token),
    payload: { grace_period_seconds: grace },
  });
}

function operator(t: TestApp, path: string) {
  return send(t, { method: 'POST', url: `/api/operator/integrators/${path}`, headers: OPERATOR });
}

async function validTokens(t: TestApp, tokens: readonly string[]): Promise<string[]> {
  const valid: string[] = [];
  for (const token of tokens) if ((await whoami(t, token)).status === 200) valid.push(token);
  return valid;
}

describe('rotation property: whatever token rotates, at most two are valid and the newest is one', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('holds for any sequence of rotations (and reissues) by any token, at any grace and pace', async () => {
    const step = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('rotate' as const),
          caller: fc.nat(),
          grace: fc.integer({ min: 0, max: 3 }),
          wait: fc.integer({ min: 0, max: 3 }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('reissue' as const),
          caller: fc.constant(0),
          grace: fc.constant(0),
          wait: fc.integer({ min: 0, max: 3 }),
        }),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 7 }), async (steps) => {
        const created = await t.createIntegrator(UNLIMITED);
        const tokens = [created.token];
        let newest = created.token;
        for (const { kind, caller, grace, wait } of steps) {
          if (kind === 'reissue') {
            const answer = await operator(t, `${created.id}/tokens/reissue`);
            assert.equal(answer.status, 201);
            newest = answer.body.server_token;
            tokens.push(newest);
          } else {
            const token = tokens[caller % tokens.length]!;
            const wasValid = (await whoami(t, token)).status === 200;
            // Grace and waits in units of 30 minutes, so tokens do expire within a sequence.
            const answer = await rotate(t, token, grace * 1800);
            if (token === newest) {
              assert.equal(answer.status, 201, JSON.stringify(answer.body));
              newest = answer.body.token;
              tokens.push(newest);
            } else {
              assert.equal(answer.status, wasValid ? 403 : 401, JSON.stringify(answer.body));
            }
          }
          t.clock.advance(wait * 1_800_000);
          const valid = await validTokens(t, tokens);
          assert.ok(valid.length <= 2, `${valid.length} valid tokens`);
          assert.ok(valid.includes(newest), 'the newest token is valid');
        }
      }),
      { numRuns: 40, seed: 20261124 },
    );
  });
});

describe('operator reissue: every token ends, one new token', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('ends the newest token and one in its grace period at once; the new token works', async () => {
    const { id, token: first } = await t.createIntegrator();
    const second = (await rotate(t, first, 86_400)).body.token;
    const answer = await operator(t, `${id}/tokens/reissue`);
    assert.equal(answer.status, 201);
    assert.deepEqual(Object.keys(answer.body), ['server_token']);
    assert.match(answer.body.server_token, /^rp_sandbox_/);
    assert.equal((await whoami(t, first)).status, 401);
    assert.equal((await whoami(t, second)).status, 401);
    assert.equal((await whoami(t, answer.body.server_token)).status, 200);
    // The new token is the newest: it rotates.
    assert.equal((await rotate(t, answer.body.server_token, 0)).status, 201);
  });

  it('answers 404 for an unknown integrator and 401 without the operator token; nothing changes', async () => {
    const { id, token } = await t.createIntegrator();
    assert.equal((await operator(t, 'int_unknown/tokens/reissue')).status, 404);
    const anonymous = await send(t, {
      method: 'POST',
      url: `/api/operator/integrators/${id}/tokens/reissue`,
    });
    assert.equal(anonymous.status, 401);
    const withServerToken = await send(t, {
      method: 'POST',
      url: `/api/operator/integrators/${id}/tokens/reissue`,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(withServerToken.status, 401, 'a server token is no operator token');
    assert.equal((await whoami(t, token)).status, 200);
  });
});

describe('suspension', () => {
  let t: TestApp;
  let api: Api;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
    receiver = await Receiver.start();
    const created = await t.createIntegrator({ ...UNLIMITED, webhook_url: receiver.url });
    api = integrationApi(t, created);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses both APIs with 403 integrator_suspended and writes nothing; unsuspend restores them', async () => {
    const tenant = await newTenant(t, api);
    const suspended = await operator(t, `${api.integratorId}/suspend`);
    assert.equal(suspended.status, 200);
    assert.equal(suspended.body.status, 'suspended');
    assert.equal(suspended.body.integrator_id, api.integratorId);

    const sessionsBefore = await t.db.query('SELECT id FROM sessions');
    for (const answer of [
      await whoami(t, api.serverToken),
      await api.login({ email: tenant.email }),
      await api.onboard(
        userBody({
          user_id: 9001,
          email: 'new@example.com',
          tenant: [tenancyBody({ payment_reference: 'S-1' })],
        }),
      ),
      await api.session(tenant.sessionId),
      await tenant.client.call('GET', '/session'),
      await tenant.client.pay({}),
    ]) {
      assert.equal(answer.status, 403, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'integrator_suspended');
      assert.equal(
        answer.body.detail,
        'This integrator is suspended by the operator; no payments can be made until it is reactivated. Contact the ' +
          'operator to have the suspension lifted.',
      );
    }
    assert.deepEqual(await t.db.query('SELECT id FROM sessions'), sessionsBefore);
    assert.equal((await t.db.query("SELECT id FROM users WHERE email = 'new@example.com'")).length, 0);
    assert.equal((await t.db.query('SELECT id FROM payments')).length, 0);

    // An unknown token is still 401: suspension tells nothing to someone without a valid token.
    assert.equal((await whoami(t, 'rp_sandbox_unknown0000000000000000000000000000')).status, 401);

    const again = await operator(t, `${api.integratorId}/suspend`);
    assert.equal(again.status, 200, 'suspending twice is harmless');
    assert.equal(again.body.updated_at, suspended.body.updated_at);

    const restored = await operator(t, `${api.integratorId}/unsuspend`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.status, 'active');
    assert.equal((await whoami(t, api.serverToken)).status, 200);
    assert.equal((await tenant.client.call('GET', '/session')).status, 200);
    assert.equal(
      (await tenant.client.pay({})).status,
      400,
      'the client works again (this body lacks a card)',
    );
  });

  it('keeps recurring schedules charging and pending webhooks delivering while suspended', async () => {
    const tenant = await scheduleTenant(t, api, {}, PAN.visa, () => runJobs(t));
    const schedule = await scheduleOk(tenant);
    await runJobs(t);
    const delivered = receiver.received.length;
    assert.ok(delivered >= 1, 'schedule_created delivered');

    assert.equal((await operator(t, `${api.integratorId}/suspend`)).status, 200);
    // The schedule's next due date comes while the integrator is suspended.
    const due = new Date(`${schedule.next_due_date}T09:00:00.000Z`);
    t.clock.advance(due.getTime() - t.clock.now().getTime());
    await enqueueSchedulerRun(t.db, t.clock);
    await runJobs(t);
    const charged = await t.db.query<{ status: string }>(
      'SELECT status FROM payments WHERE schedule_id = $1',
      [schedule.schedule_id],
    );
    assert.deepEqual(
      charged.map((p) => p.status),
      ['succeeded'],
    );
    const types = receiver.received.slice(delivered).map((r) => JSON.parse(r.body).type);
    assert.ok(types.includes('payment_success'), `delivered while suspended: ${types.join(', ')}`);
    assert.equal((await operator(t, `${api.integratorId}/unsuspend`)).status, 200);
  });

  it('answers 404 for an unknown integrator', async () => {
    assert.equal((await operator(t, 'int_unknown/suspend')).status, 404);
    assert.equal((await operator(t, 'int_unknown/unsuspend')).status, 404);
  });
});

/** Asks until the answer is `status` (a notification travels between connections); fails after 10 s. */
async function untilStatus(
  ask: () => Promise<{ status: number }>,
  status: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { status: got } = await ask();
    if (got === status) return;
    if (Date.now() > deadline) assert.fail(`${what}: still ${got} after 10 s, expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('revocation across nodes', () => {
  it('suspension, reissue and rotation made on one node hold on every node once its notification lands, the clock standing still', async () => {
    const database = await createTestDatabase();
    const a = await startTestApp({ database });
    // A second node: its own app (its own memory and listening connection), the same database and clock.
    const b = await startTestApp({ database, db: a.db, clock: a.clock });
    try {
      const { id, token } = await a.createIntegrator();
      assert.equal((await whoami(a, token)).status, 200, 'node a has read the token');
      assert.equal((await operator(b, `${id}/suspend`)).status, 200);
      assert.equal((await whoami(b, token)).status, 403, 'at once on the node that made the change');
      await untilStatus(() => whoami(a, token), 403, 'suspension on the other node');
      assert.equal((await operator(b, `${id}/unsuspend`)).status, 200);
      await untilStatus(() => whoami(a, token), 200, 'unsuspension on the other node');

      const reissued = (await operator(b, `${id}/tokens/reissue`)).body.server_token;
      assert.equal((await whoami(b, token)).status, 401);
      await untilStatus(() => whoami(a, token), 401, 'the reissued-out token on the other node');
      assert.equal((await whoami(a, reissued)).status, 200);

      const rotated = (await rotate(b, reissued, 0)).body.token;
      assert.equal((await whoami(b, reissued)).status, 401, 'grace 0 ends it at once where it rotated');
      await untilStatus(() => whoami(a, reissued), 401, 'the rotated-out token on the other node');
      assert.equal((await whoami(a, rotated)).status, 200);
    } finally {
      await b.close();
      await a.close();
      await database.drop();
    }
  });

  it('a change no node announced (a lost notification) holds after at most AUTH_CACHE_TTL_MS, which is within 5 s', async () => {
    const t = await startTestApp();
    try {
      const { id, token } = await t.createIntegrator();
      assert.equal((await whoami(t, token)).status, 200, 'the node has read the token');
      // Written behind the service's back, so no notification is sent: only the cache's age can end it.
      await t.db.query(`UPDATE integrators SET status = 'suspended' WHERE id = $1`, [id]);
      assert.equal((await whoami(t, token)).status, 200, 'answered from memory within the bound');
      t.clock.advance(AUTH_CACHE_TTL_MS);
      assert.equal((await whoami(t, token)).status, 403, 'read again once the bound has passed');
      assert.ok(AUTH_CACHE_TTL_MS <= 5_000, 'inside the 5 s revocation bound');
    } finally {
      await t.close();
    }
  });
});

describe('rentpay integrator reissue-token | suspend | unsuspend', () => {
  let t: TestApp;
  let url: string;
  before(async () => {
    t = await startTestApp();
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  const cli = (args: string[]) => runCli([...args, '--url', url, '--token', OPERATOR_TOKEN]);

  it('reissues, suspends and unsuspends a running deployment’s integrator', async () => {
    const { id, token } = await t.createIntegrator();
    const reissued = await cli(['integrator', 'reissue-token', id, '--json']);
    assert.equal(reissued.code, 0, reissued.stderr);
    const { server_token } = JSON.parse(reissued.stdout);
    assert.equal((await whoami(t, token)).status, 401);
    assert.equal((await whoami(t, server_token)).status, 200);

    const suspended = await cli(['integrator', 'suspend', id]);
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.match(suspended.stdout, /status\s+suspended/);
    assert.equal((await whoami(t, server_token)).status, 403);

    const restored = await cli(['integrator', 'unsuspend', id, '--json']);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(JSON.parse(restored.stdout).status, 'active');
    assert.equal((await whoami(t, server_token)).status, 200);
  });

  it('fails with a clear message and exit code for an unknown integrator', async () => {
    const answer = await cli(['integrator', 'suspend', 'int_nope']);
    assert.equal(answer.code, 2);
    assert.match(answer.stderr, /^rentpay: 404 not_found: No integrator int_nope\./);
  });
});
