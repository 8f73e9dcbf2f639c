/**
 * Sending deliveries again: one event, every delivery failed since a time, or every pending delivery now (after a
 * receiver's outage). Each keeps the event's webhook-id, so a receiver that got an attempt already can drop it.
 */
import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { enqueueMany } from '../platform/jobs/define.ts';
import { bringJobForward, bringJobsForwardSql, wakeWorkers } from '../platform/jobs/queue.ts';
import { webhookDeliverJob } from './jobs/webhook-deliver.ts';

/**
 * Starts a new round for deliveries (listed as `[{event_id, job_id}]` in $1): pending, due now ($2), with the job
 * that may attempt them next.
 */
const NEW_ROUND = `
  UPDATE webhook_deliveries d SET status = 'pending', round_attempts = 0, next_attempt_at = $2, pending_since = $2,
         failed_at = NULL, job_id = x.job_id, updated_at = $2
    FROM jsonb_to_recordset($1::jsonb) AS x(event_id text, job_id text)
   WHERE d.event_id = x.event_id`;

const REDELIVERY_BATCH = 1_000;

/**
 * Locks a batch of pending deliveries after event id $1 (of integrator $2, or all) whose endpoint is set and
 * enabled, brings their jobs forward to $3 and marks those whose attempt is under way.
 */
const BRING_PENDING_FORWARD = sqlStatement(
  Col.row({ event_id: Col.text, moved: Col.bool }),
  `WITH picked AS (
     SELECT d.event_id, d.job_id
       FROM webhook_deliveries d
       JOIN integrators i ON i.id = d.integrator_id
       LEFT JOIN webhook_endpoints w ON w.integrator_id = i.id
      WHERE d.status = 'pending' AND d.event_id > $1 AND ($2::text IS NULL OR d.integrator_id = $2)
        AND i.webhook_url IS NOT NULL AND (w.disabled_url IS NULL OR w.disabled_url <> i.webhook_url)
      ORDER BY d.event_id
      LIMIT $4
      FOR UPDATE OF d),
   due AS (${bringJobsForwardSql({ from: 'picked p', jobId: 'p.job_id', at: '$3' })}),
   brought AS (
     UPDATE webhook_deliveries d
        SET next_attempt_at = CASE WHEN due.id IS NULL THEN d.next_attempt_at ELSE $3 END,
            retry_requested_at = CASE WHEN due.id IS NULL THEN $3 ELSE NULL END, updated_at = $3
       FROM picked p LEFT JOIN due ON due.id = p.job_id
      WHERE d.event_id = p.event_id
      RETURNING d.event_id)
   SELECT p.event_id, EXISTS (SELECT 1 FROM brought b WHERE b.event_id = p.event_id) AS moved
     FROM picked p ORDER BY p.event_id`,
);

async function checkIntegratorExists(db: Queryable, integratorId: string): Promise<void> {
  const known = await firstRow(db, qb.selectFrom('integrators').select('id').where('id', '=', integratorId));
  if (!known) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
}

/**
 * Sends one event again, with the same webhook-id, to the integrator's current URL: a new round of the schedule
 * (an event that never had a delivery gets one). A delivery still pending has its next attempt brought forward to
 * now, unless that attempt is under way.
 */
export async function redeliverEvent(db: Db, clock: Clock, eventId: string): Promise<void> {
  const now = clock.now();
  await db.transaction(async (tx) => {
    const event = await firstRow(
      tx,
      qb
        .selectFrom('events as e')
        .innerJoin('integrators as i', 'i.id', 'e.integrator_id')
        .leftJoin('webhook_endpoints as w', 'w.integrator_id', 'i.id')
        .select((eb) => [
          'e.integrator_id',
          'i.webhook_url',
          eb
            .and([eb('w.disabled_url', 'is not', null), eb('w.disabled_url', '=', eb.ref('i.webhook_url'))])
            .as('disabled'),
        ])
        .where('e.id', '=', eventId),
    );
    if (!event) throw new ServiceError('not_found', `No event ${eventId}.`);
    if (event.webhook_url === null) {
      throw new ServiceError(
        'conflict',
        `Integrator ${event.integrator_id} has no webhook URL; set one first.`,
      );
    }
    if (event.disabled) {
      throw new ServiceError(
        'conflict',
        `The webhook endpoint of integrator ${event.integrator_id} is disabled (it answered 410 Gone); enable it or set another URL first.`,
      );
    }
    await tx.query(
      `INSERT INTO webhook_deliveries (event_id, integrator_id, status, round_attempts, created_at, updated_at)
       VALUES ($1, $2, 'failed', 0, $3, $3) ON CONFLICT (event_id) DO NOTHING`,
      [eventId, event.integrator_id, now],
    );
    // The row lock serialises this with the worker's recording of an attempt, and with other redeliveries.
    const delivery = await firstRow(
      tx,
      qb
        .selectFrom('webhook_deliveries')
        .select(['status', 'job_id'])
        .where('event_id', '=', eventId)
        .forUpdate(),
    );
    if (delivery!.status === 'pending') {
      const job = await firstRow(
        tx,
        qb.selectFrom('jobs').select('status').where('id', '=', delivery!.job_id).forUpdate(),
      );
      // An attempt under way decides what comes next; a redelivery now would send the event twice at once.
      if (job?.status === 'running') {
        throw new ServiceError(
          'conflict',
          `An attempt to deliver ${eventId} is under way (at most 15 s); redeliver again once it has ended.`,
        );
      }
      if (job?.status === 'pending') {
        await bringJobForward(tx, delivery!.job_id!, now);
        await tx.query(
          'UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $2 WHERE event_id = $1',
          [eventId, now],
        );
        return;
      }
      // Its job is gone or failed (the queue gave up on it): a new round repairs the delivery.
    }
    await newRounds(tx, clock, [{ event_id: eventId, integrator_id: event.integrator_id }]);
  });
}

/**
 * Sends again every failed delivery that failed at or after `since` (of one integrator, or all), for integrators
 * whose endpoint is set and enabled. Returns how many are now pending. Works in committed batches, so a large
 * backlog neither holds one long transaction nor builds one huge statement.
 */
export async function redeliverFailed(
  db: Db,
  clock: Clock,
  since: Date,
  integratorId?: string,
): Promise<number> {
  if (integratorId !== undefined) await checkIntegratorExists(db, integratorId);
  let redelivered = 0;
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      let failed = qb
        .selectFrom('webhook_deliveries as d')
        .innerJoin('integrators as i', 'i.id', 'd.integrator_id')
        .leftJoin('webhook_endpoints as w', 'w.integrator_id', 'i.id')
        .select(['d.event_id', 'd.integrator_id'])
        .where('d.status', '=', 'failed')
        .where('d.failed_at', '>=', since)
        .where('i.webhook_url', 'is not', null)
        .where((eb) =>
          eb.or([eb('w.disabled_url', 'is', null), eb('w.disabled_url', '<>', eb.ref('i.webhook_url'))]),
        )
        .limit(REDELIVERY_BATCH)
        .forUpdate('d')
        .skipLocked();
      if (integratorId !== undefined) failed = failed.where('d.integrator_id', '=', integratorId);
      const picked = await rows(tx, failed);
      await newRounds(tx, clock, picked);
      return picked.length;
    });
    redelivered += batch;
    if (batch < REDELIVERY_BATCH) return redelivered;
  }
}

/**
 * Brings every pending delivery's next attempt forward to now (of one integrator, or all), for endpoints that are
 * set and enabled: after a receiver's outage the operator need not wait out the retry schedule. An attempt already
 * under way is left to end and marked: if it fails, its next attempt is made at once instead of on the schedule.
 * Returns how many deliveries were brought forward or marked. In committed batches, walking the
 * deliveries in event id order, so a large backlog holds no long transaction.
 */
export async function retryPending(db: Db, clock: Clock, integratorId?: string): Promise<number> {
  if (integratorId !== undefined) await checkIntegratorExists(db, integratorId);
  let moved = 0;
  let after = '';
  for (;;) {
    const now = clock.now();
    const batch = await db.transaction(async (tx) => {
      const rows = await BRING_PENDING_FORWARD.rows(tx, [after, integratorId ?? null, now, REDELIVERY_BATCH]);
      if (rows.some((row) => row.moved)) await wakeWorkers(tx);
      return rows;
    });
    moved += batch.filter((row) => row.moved).length;
    if (batch.length < REDELIVERY_BATCH) return moved;
    after = batch[batch.length - 1]!.event_id;
  }
}

/** For each event: a delivery job due now, a new round naming it, and a wake-up for workers once this commits. */
async function newRounds(
  tx: Queryable,
  clock: Clock,
  events: { event_id: string; integrator_id: string }[],
): Promise<void> {
  if (events.length === 0) return;
  const jobIds = await enqueueMany(
    tx,
    clock,
    webhookDeliverJob,
    events.map((event) => ({ payload: { event_id: event.event_id, integrator_id: event.integrator_id } })),
  );
  await tx.query(NEW_ROUND, [
    events.map((event, i) => ({ event_id: event.event_id, job_id: jobIds[i] })),
    clock.now(),
  ]);
}
