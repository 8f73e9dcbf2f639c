import { sql } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';

export const ATTEMPT_OUTCOMES = ['delivered', 'retry', 'failed', 'disabled'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * Counted by the process that makes the attempts (a `serve` with its worker, or a `worker`), in one set per
 * process: installWebhookMetrics adds them to each app's registry.
 */
export const webhookMetrics = {
  attempts: new Counter({
    name: 'rentpay_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (another attempt is scheduled), failed (the last attempt of its round), disabled (410 Gone).',
    labelNames: ['outcome'],
    registers: [],
  }),
  latency: new Histogram({
    name: 'rentpay_webhook_attempt_duration_seconds',
    help: 'Time from sending a webhook to the end of its answer (or to the failure), by outcome.',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [],
  }),
};

export function countAttempt(outcome: AttemptOutcome, latencyMs: number): void {
  webhookMetrics.attempts.inc({ outcome });
  webhookMetrics.latency.observe({ outcome }, latencyMs / 1000);
}

export interface WebhookBacklog {
  pending: number;
  failed: number;
  oldestPendingAgeSeconds: number;
}

/** The whole database's backlog (both from partial indexes): every node reports the same. */
export async function webhookBacklog(db: Queryable, clock: Clock): Promise<WebhookBacklog> {
  const row = await firstRow(
    db,
    qb.selectNoFrom((eb) => {
      const deliveries = (status: 'pending' | 'failed') =>
        eb.selectFrom('webhook_deliveries').where('status', '=', status);
      return [
        deliveries('pending').select(sql<number>`count(*)::int`.as('count')).as('pending'),
        deliveries('failed').select(sql<number>`count(*)::int`.as('count')).as('failed'),
        deliveries('pending')
          .select((inner) => inner.fn.min('pending_since').as('oldest'))
          .as('oldest'),
      ];
    }),
  );
  const now = clock.now().getTime();
  return {
    pending: row?.pending ?? 0,
    failed: row?.failed ?? 0,
    oldestPendingAgeSeconds: row?.oldest ? Math.max(0, (now - new Date(row.oldest).getTime()) / 1000) : 0,
  };
}

/** Adds the webhook metrics to an app's registry; the backlog gauges read the database at each scrape. */
export function installWebhookMetrics(registry: Registry, db: Queryable, clock: Clock): void {
  registry.registerMetric(webhookMetrics.attempts);
  registry.registerMetric(webhookMetrics.latency);
  let scrape: Promise<WebhookBacklog> | undefined;
  // Both gauges are filled by one query per scrape.
  const backlog = () => {
    scrape ??= webhookBacklog(db, clock).finally(() => {
      scrape = undefined;
    });
    return scrape;
  };
  new Gauge({
    name: 'rentpay_webhook_deliveries',
    help: 'Webhook deliveries not delivered: pending (waiting for an attempt) and failed (until redelivered).',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const stats = await backlog();
      this.set({ status: 'pending' }, stats.pending);
      this.set({ status: 'failed' }, stats.failed);
    },
  });
  new Gauge({
    name: 'rentpay_webhook_oldest_pending_age_seconds',
    help: 'How long the oldest undelivered event has waited (since it was recorded or redelivered); 0 when none waits.',
    registers: [registry],
    async collect() {
      this.set((await backlog()).oldestPendingAgeSeconds);
    },
  });
}
