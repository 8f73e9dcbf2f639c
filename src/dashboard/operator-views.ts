import { type TSchema, Type } from 'typebox';
import type { IntegratorService } from '../integrators/service.ts';
import type { PaymentVolume } from '../payments/volume.ts';
import { ErrorResponse, IdString, integrationErrors, Timestamp } from '../platform/http/schemas.ts';
import type { SystemReport } from '../platform/jobs/health.ts';
import { formatPence } from '../shared/money.ts';
import type { IntegratorBacklog } from '../webhooks/backlog.ts';

/** The operator console's pages, in the dashboard API's document. */
export const OPERATOR_TAG = 'Operator console';

export const Money = Type.String({ pattern: '^-?\\d+\\.\\d{2}$', examples: ['1200.00'] });

/** Every operator console route's errors: 401 without a session, 403 for a platform's people or a role that may not. */
export function operatorConsoleErrors(extra: Record<number, TSchema> = {}): Record<number, TSchema> {
  return integrationErrors(extra);
}

export const NotFound = { ...ErrorResponse, description: 'not_found: no such id.' };

export const IntegratorParams = Type.Object({ integrator_id: IdString('int', 'an integrator') });

/** How many days of payments the integrators list sums. */
export const HEALTH_DAYS = 30;

export const ConsoleIntegrator = Type.Object(
  {
    integrator_id: Type.String(),
    name: Type.String(),
    status: Type.Enum(['active', 'suspended'], {
      description: 'suspended: its server and user session tokens are refused with 403 integrator_suspended.',
    }),
    environment: Type.Enum(['sandbox', 'production']),
    created_at: Timestamp,
    payments: Type.Object(
      {
        succeeded: Type.Integer({ description: 'Payments that succeeded.' }),
        amount: {
          ...Money,
          description: 'What tenants were charged for them (rent and fees), before refunds.',
        },
        failed: Type.Integer({ description: 'Payments that failed (declined, errors).' }),
        failure_rate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
          description: 'failed / (succeeded + failed), 0 to 1; null when there were none of either.',
        }),
      },
      { description: `Payments made in the last ${HEALTH_DAYS} days.` },
    ),
    webhooks: Type.Object(
      {
        pending: Type.Integer({ description: 'Deliveries waiting for an attempt (new or retrying).' }),
        oldest_pending_age_seconds: Type.Union([Type.Number(), Type.Null()], {
          description: 'How long the oldest pending delivery has waited; null when none waits.',
        }),
        failed: Type.Integer({ description: 'Deliveries that gave up, until redelivered.' }),
      },
      { description: 'Its webhook backlog now.' },
    ),
  },
  { title: 'ConsoleIntegrator' },
);

type IntegratorRow = Awaited<ReturnType<IntegratorService['list']>>[number];

export function consoleIntegratorView(
  integrator: IntegratorRow,
  volume: PaymentVolume | undefined,
  backlog: IntegratorBacklog | undefined,
  now: Date,
) {
  const succeeded = volume?.succeeded ?? 0;
  const failed = volume?.failed ?? 0;
  const oldest = backlog?.oldestPendingSince ?? null;
  return {
    integrator_id: integrator.id,
    name: integrator.name,
    status: integrator.status,
    environment: integrator.environment,
    created_at: new Date(integrator.created_at).toISOString(),
    payments: {
      succeeded,
      amount: formatPence(volume?.succeededPence ?? 0),
      failed,
      failure_rate:
        succeeded + failed === 0 ? null : Math.round((failed / (succeeded + failed)) * 10_000) / 10_000,
    },
    webhooks: {
      pending: backlog?.pending ?? 0,
      oldest_pending_age_seconds:
        oldest === null ? null : Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)),
      failed: backlog?.failed ?? 0,
    },
  };
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

export const SystemHealthView = Type.Object(
  {
    checked_at: Timestamp,
    database: Type.Object({
      reachable: Type.Boolean(),
      round_trip_ms: Type.Union([Type.Number(), Type.Null()], {
        description:
          'A trivial statement’s round trip from this node, in milliseconds; null when unreachable.',
      }),
    }),
    queue: Type.Array(
      Type.Object({
        kind: Type.String(),
        pending: Type.Integer({
          description: 'Waiting: due now, or later (a retry, a job scheduled ahead).',
        }),
        due: Type.Integer({ description: 'Of those, due now: a worker takes them at its next look.' }),
        running: Type.Integer(),
        failed: Type.Integer({ description: 'Failed for good, kept until JOB_RETENTION_DAYS.' }),
        oldest_due_at: Type.Union([Timestamp, Type.Null()], {
          description: 'When the oldest due job became due; null when none is due.',
        }),
        oldest_due_age_seconds: Type.Union([Type.Number(), Type.Null()]),
      }),
      { description: 'Each kind with jobs pending, running or failed, by kind.' },
    ),
    workers: Type.Array(
      Type.Object({
        worker_id: Type.String({ description: 'host:pid:random, as its jobs’ locked_by names it.' }),
        host: Type.String(),
        pid: Type.Integer(),
        started_at: Timestamp,
        last_beat_at: Timestamp,
        last_beat_seconds_ago: Type.Number(),
        stale_after_seconds: Type.Number({
          description:
            'Its limit: three of the longer of its poll interval and lease heartbeat, 30 s at least.',
        }),
        stale: Type.Boolean({
          description: 'No beat for longer than its limit: the worker died, hangs, or lost the database.',
        }),
      }),
      {
        description:
          'Every job worker process of every node (a serve with its worker, or a worker), newest start first. A ' +
          'worker stopped cleanly is gone; one that died stays, stale, until JOB_RETENTION_DAYS after its last beat.',
      },
    ),
  },
  { title: 'SystemHealth' },
);

export function systemHealthView(report: SystemReport, now: Date) {
  const age = (at: Date | null) => (at === null ? null : Math.max(0, (now.getTime() - at.getTime()) / 1000));
  return {
    checked_at: now.toISOString(),
    database: { reachable: report.database.reachable, round_trip_ms: report.database.roundTripMs },
    queue: report.queue.map((kind) => ({
      kind: kind.kind,
      pending: kind.pending,
      due: kind.due,
      running: kind.running,
      failed: kind.failed,
      oldest_due_at: iso(kind.oldestDueAt),
      oldest_due_age_seconds: age(kind.oldestDueAt),
    })),
    workers: report.workers.map((worker) => ({
      worker_id: worker.id,
      host: worker.host,
      pid: worker.pid,
      started_at: worker.startedAt.toISOString(),
      last_beat_at: worker.lastBeatAt.toISOString(),
      last_beat_seconds_ago: worker.lastBeatSecondsAgo,
      stale_after_seconds: worker.staleAfterMs / 1000,
      stale: worker.stale,
    })),
  };
}
