import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock/clock.ts';
import type { Db } from '../db/db.ts';
import { ServiceError } from '../errors.ts';
import { parseAuthorization } from '../http/auth.ts';
import { digestsEqual, sha256Hex } from '../ids.ts';
import { queueStats } from '../jobs/queue.ts';

/** One registry per app, so several apps in one process (tests, benchmarks) keep separate counts. */
export function installMetrics(
  app: FastifyInstance,
  db: Db,
  clock: Clock,
  metricsToken: string | undefined,
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'rentpay_http_requests_total',
    help: 'HTTP requests by method, route and status code.',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rentpay_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'rentpay_jobs',
    help: 'Background jobs by status (succeeded jobs are not counted).',
    labelNames: ['status'],
    registers: [registry],
  });
  const oldestDueAge = new Gauge({
    name: 'rentpay_jobs_oldest_due_age_seconds',
    help: 'How long the oldest due, unclaimed job has been waiting.',
    registers: [registry],
  });

  // The label children are looked up once per method, route and status (a bounded set: unmatched URLs share one
  // route label), not hashed from a labels object on every request. A callback hook: an async one costs a promise.
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method: request.method, route, status_code: String(reply.statusCode) };
      const counter = requests.labels(labels);
      const histogram = duration.labels(labels);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      children.set(key, child);
    }
    child.count();
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  const expectedDigest = metricsToken === undefined ? undefined : sha256Hex(metricsToken);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expectedDigest !== undefined) {
      const parsed = parseAuthorization(request.headers.authorization);
      if (
        parsed?.scheme.toLowerCase() !== 'bearer' ||
        !digestsEqual(sha256Hex(parsed.credentials), expectedDigest)
      ) {
        throw new ServiceError('unauthorized', 'Send "Authorization: Bearer <METRICS_TOKEN>".', {
          'www-authenticate': 'Bearer',
        });
      }
    }
    // One queue query per scrape feeds both job gauges.
    const stats = await queueStats(db, clock);
    jobs.set({ status: 'pending' }, stats.pending);
    jobs.set({ status: 'running' }, stats.running);
    jobs.set({ status: 'failed' }, stats.failed);
    oldestDueAge.set(stats.oldestPendingAgeSeconds);
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}
