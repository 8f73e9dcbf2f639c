/**
 * `rentpay worker` answers a load balancer and Prometheus on its own PORT: two workers on one PostgreSQL (a server
 * of this file's own, so that it can be stopped), each with /healthz, /readyz and /metrics.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { type PgCluster, startPgCluster } from '../support/pg-cluster.ts';

const METRICS_TOKEN = 'a-metrics-token-for-prometheus-0123';

interface RunningWorker {
  child: ChildProcessWithoutNullStreams;
  url: string;
  name: string;
}

let cluster: PgCluster;
const workers: RunningWorker[] = [];

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: cluster.url,
    PORT: '0',
    METRICS_TOKEN,
    LOG_LEVEL: 'warn',
  };
}

/** Starts a worker and resolves once it says where its health endpoints are. */
function startWorker(): Promise<RunningWorker> {
  const child = spawn(process.execPath, ['bin/rentpay.mjs', 'worker'], { env: env(), stdio: 'pipe' });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = /rentpay worker (\S+) is running .*health and metrics on (http:\/\/\S+) /.exec(output);
      if (found) resolve({ child, name: found[1]!, url: found[2]! });
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text() };
}

/** Asks again until `done`: the answer changes when the worker notices the database (no fixed wait). */
async function until(
  url: string,
  done: (status: number) => boolean,
): Promise<{ status: number; text: string }> {
  for (;;) {
    const answer = await get(url);
    if (done(answer.status)) return answer;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

before(async () => {
  cluster = await startPgCluster();
  workers.push(await startWorker());
  workers.push(await startWorker());
});

after(async () => {
  for (const { child } of workers) {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  cluster?.destroy();
});

describe('the worker’s health and metrics, two workers on one database', () => {
  it('each answers /healthz and /readyz, naming itself', async () => {
    const names = new Set<string>();
    for (const worker of workers) {
      assert.deepEqual(await get(`${worker.url}/healthz`), { status: 200, text: '{"status":"ok"}' });
      const ready = await get(`${worker.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(JSON.parse(ready.text), { status: 'ready', worker: worker.name });
      names.add(worker.name);
    }
    assert.equal(names.size, 2);
  });

  it('/metrics: the job queue and the webhook attempts, behind METRICS_TOKEN', async () => {
    for (const worker of workers) {
      const denied = await get(`${worker.url}/metrics`);
      assert.equal(denied.status, 401);
      const metrics = await get(`${worker.url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /^rentpay_jobs\{status="pending"\} \d+$/m);
      assert.match(metrics.text, /^rentpay_jobs_oldest_due_age_seconds \d+/m);
      assert.match(metrics.text, /^# TYPE rentpay_webhook_attempts_total counter$/m);
      assert.match(metrics.text, /^rentpay_webhook_deliveries\{status="pending"\} \d+$/m);
    }
  });

  it('the database stops: /readyz says so (503) while /healthz still answers; it comes back ready', async () => {
    cluster.stop('fast');
    for (const worker of workers) {
      const down = await until(`${worker.url}/readyz`, (status) => status !== 200);
      assert.equal(down.status, 503);
      assert.deepEqual(JSON.parse(down.text), {
        status: 'unavailable',
        detail: 'The database is not reachable.',
      });
      assert.equal((await get(`${worker.url}/healthz`)).status, 200);
    }
    cluster.start();
    for (const worker of workers) {
      assert.equal((await until(`${worker.url}/readyz`, (status) => status === 200)).status, 200);
    }
  });

  it('SIGTERM stops each worker cleanly', async () => {
    for (const { child } of workers) {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });
});
