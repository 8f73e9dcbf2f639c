import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';
import { newId } from '../platform/ids.ts';
import { insertJobsSql, wakeWorkers } from '../platform/jobs/queue.ts';
import { webhookDeliverJob } from './jobs/webhook-deliver.ts';

export type EventType =
  | 'payment_success'
  | 'payment_failed'
  | 'payment_action_required'
  | 'payment_refunded'
  | 'refund_failed'
  | 'payment_disputed'
  | 'payment_dispute_closed'
  | 'schedule_created'
  | 'schedule_paused'
  | 'schedule_resumed'
  | 'schedule_canceled'
  | 'document_failed'
  | 'rent_due_soon'
  | 'rent_overdue'
  | 'payout_paid'
  /** A test event the integrator asked for: data `{integrator_id}`. */
  | 'ping';

/** One event to record: whose it is, its type and its data. */
export interface EventRecord {
  integratorId: string;
  type: EventType;
  data: Record<string, unknown>;
}

const RECORD_EVENTS = sqlStatement(
  Col.row({ jobs: Col.int }),
  `WITH x AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, integrator_id text, type text, data jsonb, job_id text)),
   e AS (
     INSERT INTO events (id, integrator_id, type, data, created_at)
     SELECT x.id, x.integrator_id, x.type, x.data, $2 FROM x
     RETURNING id, integrator_id),
   d AS (
     INSERT INTO webhook_deliveries (event_id, integrator_id, status, next_attempt_at, pending_since, job_id,
                                     created_at, updated_at)
     SELECT e.id, e.integrator_id, 'pending', $2, $2, x.job_id, $2, $2
       FROM e JOIN x ON x.id = e.id JOIN integrators i ON i.id = e.integrator_id
      WHERE i.webhook_url IS NOT NULL
     RETURNING event_id, integrator_id, job_id),
   j AS (${insertJobsSql({ from: 'd', id: 'd.job_id', kind: '$3', payload: "jsonb_build_object('event_id', d.event_id, 'integrator_id', d.integrator_id)", now: '$2', fairKey: 'd.integrator_id' })})
   SELECT count(*)::int AS jobs FROM j`,
  { prepare: 'record-events' },
);

/**
 * Records an event in the caller's transaction, beside the state change that causes it: the
 * change and its event commit together or not at all. If the integrator has a webhook URL, the same statement
 * writes the event's delivery and its first webhook.deliver job (src/webhooks/jobs/webhook-deliver.ts), and a notification
 * wakes the workers once the transaction commits. Without a URL the event is kept and nothing is sent.
 */
export async function recordEvent(
  tx: Queryable,
  clock: Clock,
  integratorId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<string> {
  const [id] = await recordEvents(tx, clock, [{ integratorId, type, data }]);
  return id!;
}

/** Several events (of any integrators) as recordEvent records one, all in one statement; returns their ids. */
export async function recordEvents(tx: Queryable, clock: Clock, events: EventRecord[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: newId('evt'),
    integrator_id: event.integratorId,
    type: event.type,
    data: event.data,
    job_id: newId('job'),
  }));
  // One statement, so events cost their transaction one round trip with or without a webhook.
  const queued = await RECORD_EVENTS.first(tx, [rows, clock.now(), webhookDeliverJob.kind]);
  if ((queued?.jobs ?? 0) > 0) await wakeWorkers(tx);
  return rows.map((row) => row.id);
}
