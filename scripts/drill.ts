/**
 * `npm run drill`: fault drills on a PostgreSQL server of the drill's own (never the shared one): two
 * `rentpay serve --no-worker` and two `rentpay worker` processes, card payments through both serves, and
 *   1. kill -9 of a worker while it delivers webhooks and of a serve while payments are in flight (the client retries
 *      with the same idempotency key on the other serve, as a client should);
 *   2. the database stopped and started again under load (503 unavailable meanwhile, no restarts);
 *   3. the webhook receiver down, then `webhooks retry-pending`.
 * Then the invariants, read from the database: one processor charge per payment, at most one succeeded payment per
 * session, every success delivered to the receiver, no job stuck. Prints its figures; exits 1 on any violation.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { tenancyBody, userBody } from '../test/support/fixtures.ts';
import { freePort, startPgCluster } from '../test/support/pg-cluster.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer
type Json = Record<string, any>;
const OPERATOR = 'rpo_drill_operator_token_0123456789abcdef';
const TENANTS = 30;
const started = Date.now();
const log = (message: string) =>
  process.stdout.write(`drill ${((Date.now() - started) / 1000).toFixed(1)}s: ${message}\n`);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The webhook receiver: records each webhook-id it accepts; answers 503 while `down`. */
function startReceiver() {
  const ids = new Map<string, number>();
  const state = { down: false };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (state.down) return void res.writeHead(503).end('down');
      const id = String(req.headers['webhook-id']);
      ids.set(id, (ids.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  return { server, ids, state };
}

async function main(): Promise<void> {
  const cluster = await startPgCluster();
  const children: ChildProcess[] = [];
  const receiver = startReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.server.address() as net.AddressInfo).port}/hooks`;
  const db = new pg.Pool({ connectionString: cluster.url, max: 2 });
  db.on('error', () => undefined);
  const env = {
    ...process.env,
    DATABASE_URL: cluster.url,
    SERVICE_ENV: 'sandbox',
    OPERATOR_TOKEN: OPERATOR,
    DOCUMENT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ALLOW_PRIVATE_WEBHOOK_HOSTS: '1',
    LOG_LEVEL: 'warn',
  };
  const spawnRentpay = (args: string[], extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, ['bin/rentpay.mjs', ...args], {
      cwd: ROOT,
      env: { ...env, ...extra },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(child);
    return child;
  };
  let failures = 0;
  const check = (ok: boolean, message: string) => {
    log(`${ok ? 'ok  ' : 'FAIL'} ${message}`);
    if (!ok) failures += 1;
  };
  try {
    await new Promise<void>((resolve, reject) =>
      spawnRentpay(['migrate']).on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`migrate ${code}`)),
      ),
    );
    const ports = [await freePort(), await freePort()];
    const serves = ports.map((port) =>
      spawnRentpay(['serve', '--no-worker'], { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }),
    );
    const workers = [spawnRentpay(['worker'], { PORT: '0' }), spawnRentpay(['worker'], { PORT: '0' })];
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    for (const url of urls)
      await until(`${url} ready`, async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined));
    log(`2 serve + 2 worker processes up on ${cluster.url}`);

    const call = async (base: string, method: string, route: string, auth: string, body?: unknown) => {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: {
          ...(auth ? { authorization: auth } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json().catch(() => ({}))) as Json };
    };
    const created = await call(urls[0]!, 'POST', '/api/operator/integrators', `Bearer ${OPERATOR}`, {
      name: 'Drill platform',
      webhook_url: receiverUrl,
      rate_limit_per_second: 10_000,
      rate_limit_burst: 20_000,
    });
    const server = `Token ${created.body.server_token}`;
    const onboarded = await call(
      urls[0]!,
      'POST',
      '/api/third-party/onboarding/',
      server,
      Array.from({ length: TENANTS }, (_, i) =>
        userBody({
          user_id: 1000 + i,
          email: `drill-${i}@example.com`,
          tenant: [
            tenancyBody({
              payment_reference: `DRILL-${i}`,
              end_rent_date: '2030-12-31',
              agreement: `${urls[0]}/sandbox/documents/sample-agreement.pdf`,
            }),
          ],
        }),
      ),
    );
    check(onboarded.status === 201, `onboarded ${TENANTS} tenants (${onboarded.status})`);
    if (onboarded.status !== 201)
      throw new Error(`onboarding: ${JSON.stringify(onboarded.body).slice(0, 500)}`);

    /**
     * One tenant's payment: one session, and the payment retried with the same session and idempotency key on the
     * other serve when a request fails (as a client should: a new session would be a new payment).
     */
    const pay = async (i: number) => {
      const key = `drill-${i}-${randomBytes(4).toString('hex')}`;
      const step = async (
        what: string,
        request: (base: string) => Promise<{ status: number; body: Json }>,
        ok: number[],
      ) => {
        for (let attempt = 0; attempt < 60; attempt++) {
          const answer = await request(urls[(i + attempt) % 2]!).catch(() => undefined);
          if (answer && ok.includes(answer.status)) return answer;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        throw new Error(`${what} never answered`);
      };
      const login = await step(
        'user-login',
        (base) =>
          call(base, 'POST', '/api/third-party/user-login/', server, { email: `drill-${i}@example.com` }),
        [200],
      );
      const card = await step(
        'card token',
        (base) =>
          call(base, 'POST', '/sandbox/tokens', '', {
            number: '4242424242424242',
            exp_month: 12,
            exp_year: 2030,
            cvc: '123',
          }),
        [201],
      );
      const paid = await step(
        'payment',
        (base) =>
          call(base, 'POST', '/api/client/payments', `Bearer ${login.body.token}`, {
            pure_amount: '1200.00',
            method: 'card',
            idempotency_key: key,
            card_token: card.body.token,
          }),
        [200, 201],
      ).catch(() => undefined);
      return paid?.status ?? 0;
    };

    // 1. kill -9 mid-payment (serve 2) and mid-delivery (worker 1).
    const round1 = Array.from({ length: 15 }, (_, i) => pay(i));
    await until('deliveries under way', async () => (receiver.ids.size > 0 ? true : undefined));
    workers[0]!.kill('SIGKILL');
    serves[1]!.kill('SIGKILL');
    log('killed worker 1 and serve 2 with SIGKILL');
    const statuses1 = await Promise.all(round1);
    check(
      statuses1.every((s) => s > 0),
      `round 1: ${statuses1.filter((s) => s > 0).length}/15 payments answered`,
    );
    serves[1] = spawnRentpay(['serve', '--no-worker'], { PORT: String(ports[1]), PUBLIC_URL: urls[1]! });
    workers[0] = spawnRentpay(['worker'], { PORT: '0' });
    await until('serve 2 back', async () => ((await fetch(`${urls[1]}/readyz`)).ok ? true : undefined));

    // 2. The database stopped and started again.
    cluster.stop('fast');
    const duringLogin = await call(urls[0]!, 'POST', '/api/third-party/user-login/', server, {
      email: 'drill-0@example.com',
    });
    check(
      duringLogin.status === 503 && duringLogin.body.error === 'unavailable',
      `database down: user-login answers ${duringLogin.status} ${duringLogin.body.error}`,
    );
    cluster.start();
    const round2 = await Promise.all(Array.from({ length: 8 }, (_, i) => pay(15 + i)));
    check(
      round2.every((s) => s > 0),
      `round 2 after the restart: ${round2.filter((s) => s > 0).length}/8 payments answered`,
    );

    // 3. The receiver down, payments, then up and retry-pending.
    receiver.state.down = true;
    const round3 = await Promise.all(Array.from({ length: TENANTS - 23 }, (_, i) => pay(23 + i)));
    check(
      round3.every((s) => s > 0),
      `round 3, receiver down: ${round3.filter((s) => s > 0).length}/${TENANTS - 23} payments answered`,
    );
    // Every event so far has had its first attempt refused (or delivered before the outage), so retry-pending has
    // deliveries waiting out their schedule to bring forward.
    await until('a first attempt of every webhook', async () => {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending' AND attempts = 0",
      );
      return rows[0]?.n === 0 ? true : undefined;
    });
    receiver.state.down = false;
    const retried = await call(
      urls[1]!,
      'POST',
      '/api/operator/webhooks/retry-pending',
      `Bearer ${OPERATOR}`,
      {},
    );
    check(retried.status === 202, `retry-pending: ${retried.status} ${JSON.stringify(retried.body)}`);

    // The invariants.
    const succeeded = await until(
      'every success delivered',
      async () => {
        const { rows } = await db.query<{ id: string }>(
          "SELECT id FROM events WHERE type = 'payment_success'",
        );
        return rows.length >= TENANTS && rows.every((row) => receiver.ids.has(row.id)) ? rows : undefined;
      },
      180_000,
    ).catch(() => [] as { id: string }[]);
    check(
      succeeded.length === TENANTS,
      `every payment_success delivered, one per tenant: ${succeeded.length}/${TENANTS}`,
    );
    const q = async (sql: string) => (await db.query(sql)).rows;
    const doubles = await q(
      'SELECT idempotency_key, count(*) FROM sandbox_charges GROUP BY 1 HAVING count(*) > 1',
    );
    check(doubles.length === 0, `one processor charge per payment (${doubles.length} keys charged twice)`);
    const perSession = await q(
      "SELECT session_id, count(*) FROM payments WHERE status = 'succeeded' GROUP BY 1 HAVING count(*) > 1",
    );
    check(
      perSession.length === 0,
      `at most one succeeded payment per session (${perSession.length} sessions with more)`,
    );
    const paid = await q(
      "SELECT count(*)::int AS n, count(DISTINCT user_id)::int AS users FROM payments WHERE status = 'succeeded'",
    );
    check(
      paid[0]?.n === TENANTS && paid[0]?.users === TENANTS,
      `every tenant paid exactly once: ${paid[0]?.n} payments of ${paid[0]?.users}/${TENANTS} tenants`,
    );
    const processing = await q("SELECT id FROM payments WHERE status = 'processing'");
    check(processing.length === 0, `no payment left processing (${processing.length})`);
    const stuck = await q(
      "SELECT id, kind FROM jobs WHERE (status = 'running' AND locked_until < now() - interval '60 seconds') OR (status = 'pending' AND run_at < now() - interval '60 seconds')",
    );
    check(stuck.length === 0, `no job stuck (${JSON.stringify(stuck.slice(0, 5))})`);
    const redelivered = [...receiver.ids.values()].filter((n) => n > 1).length;
    log(
      `figures: ${TENANTS} payments, ${receiver.ids.size} webhook-ids received, ${redelivered} received more than once (allowed: same webhook-id)`,
    );
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await db.end().catch(() => undefined);
    receiver.server.close();
    cluster.destroy();
  }
  log(failures === 0 ? 'drill passed' : `drill FAILED: ${failures} check(s)`);
  process.exitCode = failures === 0 ? 0 : 1;
}

await main();
