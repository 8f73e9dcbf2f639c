import type { NotNull } from 'kysely';
import type { Static } from 'typebox';
import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { asDate, qb, rows } from '../platform/db/query-builder.ts';
import { enqueueMany } from '../platform/jobs/define.ts';
import type { PaymentProcessor } from '../processors/processor.ts';
import {
  ATTEMPT_REQUEST,
  type AttemptRequest,
  CHARGE_KEY,
  type ChargeKey,
  type NewCharge,
  reachSchedule,
} from './charge-rules.ts';
import { type AttemptOutcome, ScheduleCharger } from './charger.ts';
import { scheduleActionExpireJob } from './jobs/schedule-action-expire.ts';
import { CHARGES_PER_JOB, scheduleChargeJob } from './jobs/schedule-charge.ts';
import { recordScheduleEvent } from './service.ts';
import { scheduleDetails } from './view.ts';

const BATCH = 500;

const INSERT_CHARGES = sqlStatement(
  CHARGE_KEY,
  `INSERT INTO schedule_charges (schedule_id, due_date, integrator_id, installment_number, pure_amount_pence,
                                 fee_pence, status, queued_attempt, next_attempt_on, created_at, updated_at)
   SELECT x.schedule_id, x.due_date, x.integrator_id, x.installment_number, x.pure_amount_pence, x.fee_pence,
          'pending', $2, x.due_date, $3, $3
     FROM jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date, integrator_id text,
          installment_number integer, pure_amount_pence bigint, fee_pence bigint)
   ON CONFLICT (schedule_id, due_date) DO NOTHING
   RETURNING schedule_id, due_date::text AS due_date`,
);

const CLAIM_DUE_ATTEMPTS = sqlStatement(
  Col.row({ ...ATTEMPT_REQUEST.properties, again: Col.bool }),
  `WITH due AS (
     SELECT c.schedule_id, c.due_date, c.queued_attempt > c.attempts AS again FROM schedule_charges c
      WHERE c.status = 'pending' AND c.next_attempt_on <= $1
        AND (c.queued_attempt <= c.attempts
             OR NOT EXISTS (SELECT 1 FROM jobs j
                             WHERE j.id = c.queued_job_id AND j.status IN ('pending', 'running')))
      ORDER BY c.next_attempt_on
      LIMIT ${BATCH}
      FOR UPDATE OF c SKIP LOCKED)
   UPDATE schedule_charges c SET queued_attempt = c.attempts + 1, updated_at = $2
     FROM due WHERE c.schedule_id = due.schedule_id AND c.due_date = due.due_date
   RETURNING c.schedule_id, c.due_date::text AS due_date, c.queued_attempt AS attempt, due.again`,
);

type ChargeJobPayload = Static<typeof scheduleChargeJob.payload>;

/**
 * Jobs for these attempts, CHARGES_PER_JOB to a job. `again`: attempts whose earlier job is over without recording
 * them (their jobs have no dedupe key).
 */
export function chargeJobs(requests: AttemptRequest[], again = false): { payload: ChargeJobPayload }[] {
  const jobs: { payload: ChargeJobPayload }[] = [];
  for (let i = 0; i < requests.length; i += CHARGES_PER_JOB) {
    const charges = requests.slice(i, i + CHARGES_PER_JOB);
    jobs.push({ payload: again ? { charges, again } : { charges } });
  }
  return jobs;
}

/** Enqueues the attempts' jobs and notes each charge's job (queued_job_id), in `tx`, where the charges are locked. */
async function enqueueAttempts(
  tx: Queryable,
  clock: Clock,
  requests: AttemptRequest[],
  again = false,
): Promise<void> {
  if (requests.length === 0) return;
  const ids = await enqueueMany(tx, clock, scheduleChargeJob, chargeJobs(requests, again));
  await tx.query(
    `UPDATE schedule_charges c SET queued_job_id = x.job_id
       FROM jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date, job_id text)
      WHERE c.schedule_id = x.schedule_id AND c.due_date = x.due_date`,
    [
      requests.map((r, i) => ({
        schedule_id: r.schedule_id,
        due_date: r.due_date,
        job_id: ids[Math.floor(i / CHARGES_PER_JOB)],
      })),
    ],
  );
}

/**
 * Charges schedules. Exactly once per (schedule, due date), whatever runs it and how often:
 * - reaching a due date writes its schedule_charges row, whose primary key is (schedule, due date), in the same
 *   transaction that moves the schedule's next_due_date past it (the schedule row locked, SKIP LOCKED);
 * - each attempt calls the processor with a key of (schedule, due date, attempt), so asking again answers the same
 *   charge, and records its payment only if the row's attempt count has not reached it yet (the row locked).
 */
export class Scheduler {
  readonly #charger: ScheduleCharger;

  /**
   * `expireWaiting`: fails a recurring charge's payment that waited for its tenant past its confirm-by day (the
   * payments service's, wired by the composition root); the sandbox test clock calls it in `runAsOf`.
   */
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    processor: PaymentProcessor,
    private readonly expireWaiting: (paymentId: string) => Promise<unknown> = async () => undefined,
  ) {
    this.#charger = new ScheduleCharger(db, clock, processor);
  }

  /** The payments of charges that waited for their tenant past their confirm-by day, as of `asOf`. */
  #waitedTooLong(asOf: string, integratorId?: string): Promise<{ payment_id: string }[]> {
    let query = qb
      .selectFrom('schedule_charges')
      .select('last_payment_id as payment_id')
      .where('status', '=', 'requires_action')
      .where('next_attempt_on', '<=', asDate(asOf))
      .orderBy('next_attempt_on')
      .orderBy('schedule_id')
      .limit(BATCH)
      // A charge waits for its tenant on the payment its attempt made.
      .$narrowType<{ payment_id: NotNull }>();
    if (integratorId !== undefined) query = query.where('integrator_id', '=', integratorId);
    return rows(this.db, query);
  }

  /**
   * Reaches every due date up to `asOf` (inclusive) of the active and paused schedules (of one integrator, or all):
   * an active schedule gets a charge for each, a paused one skips them; the schedule moves on to its next due date,
   * or is completed when the tenancy (or its plan) has none left. An active schedule whose tenancy is no longer active
   * is paused instead (schedule_paused). With `enqueue`, each new charge gets its first attempt's job at once.
   * Returns the charges written.
   */
  async reach(asOf: string, options: { integratorId?: string; enqueue: boolean }): Promise<ChargeKey[]> {
    const written: ChargeKey[] = [];
    for (;;) {
      const batch = await this.db.transaction((tx) => this.#reachBatch(tx, asOf, options));
      written.push(...batch.written);
      if (batch.schedules < BATCH) return written;
    }
  }

  async #reachBatch(
    tx: Queryable,
    asOf: string,
    options: { integratorId?: string; enqueue: boolean },
  ): Promise<{ schedules: number; written: ChargeKey[] }> {
    const now = this.clock.now();
    // The due schedules first, in the order of the due index so the scan stops after the batch; then their details.
    let due = qb
      .selectFrom('schedules')
      .select('id')
      .where('status', 'in', ['active', 'paused'])
      .where('next_due_date', '<=', asDate(asOf))
      .orderBy('next_due_date')
      .limit(BATCH)
      .forUpdate()
      .skipLocked();
    if (options.integratorId !== undefined) due = due.where('integrator_id', '=', options.integratorId);
    const locked = await rows(tx, due);
    if (locked.length === 0) return { schedules: 0, written: [] };
    const details = await rows(
      tx,
      scheduleDetails().where(
        's.id',
        'in',
        locked.map((row) => row.id),
      ),
    );
    const charges: NewCharge[] = [];
    const moves: { id: string; status: string; next_due_date: string | null }[] = [];
    const pausedNow: string[] = [];
    for (const row of details) {
      const reached = reachSchedule(row, asOf);
      if (reached.pausedNow) pausedNow.push(row.id);
      charges.push(...reached.charges);
      moves.push({ id: row.id, status: reached.status, next_due_date: reached.next_due_date });
    }
    const inserted =
      charges.length === 0 ? [] : await INSERT_CHARGES.rows(tx, [charges, options.enqueue ? 1 : 0, now]);
    if (moves.length > 0) {
      await tx.query(
        `UPDATE schedules s SET status = x.status, next_due_date = x.next_due_date, updated_at = $2
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, status text, next_due_date date)
          WHERE s.id = x.id`,
        [moves, now],
      );
    }
    for (const id of pausedNow) await recordScheduleEvent(tx, this.clock, 'schedule_paused', id);
    if (options.enqueue) {
      await enqueueAttempts(
        tx,
        this.clock,
        inserted.map((key) => ({ ...key, attempt: 1 })),
      );
    }
    return { schedules: details.length, written: inserted };
  }

  /**
   * Enqueues the next attempt of every pending charge due by `asOf` that has no live job for it: retries whose day has
   * come, charges written without a job, and attempts whose job is over (failed for good: the processor unreachable,
   * or without an outcome, for as long as the job retried) without recording them, which are asked again with the
   * same key. Returns how many. Also enqueues the expiry of each charge that waited for its tenant past its
   * confirm-by day.
   */
  async enqueueDue(asOf: string): Promise<number> {
    let total = 0;
    for (;;) {
      const queued = await this.db.transaction(async (tx) => {
        const claimed = await CLAIM_DUE_ATTEMPTS.rows(tx, [asOf, this.clock.now()]);
        const request = ({ schedule_id, due_date, attempt }: AttemptRequest) => ({
          schedule_id,
          due_date,
          attempt: Number(attempt),
        });
        await enqueueAttempts(tx, this.clock, claimed.filter((r) => !r.again).map(request));
        await enqueueAttempts(tx, this.clock, claimed.filter((r) => r.again).map(request), true);
        return claimed.length;
      });
      total += queued;
      if (queued < BATCH) break;
    }
    const expired = await this.#waitedTooLong(asOf);
    await enqueueMany(
      this.db,
      this.clock,
      scheduleActionExpireJob,
      expired.map(({ payment_id }) => ({ payload: { payment_id } })),
    );
    return total;
  }

  /** One attempt at a due date's charge (see ScheduleCharger.attempt). */
  attempt(key: ChargeKey, attempt: number, today: string): Promise<AttemptOutcome> {
    return this.#charger.attempt(key, attempt, today);
  }

  /** Attempts at several charges, recorded in one transaction (see ScheduleCharger.attemptAll). */
  attemptAll(
    requests: AttemptRequest[],
    today: string,
    complete?: (tx: Queryable) => Promise<void>,
  ): Promise<AttemptOutcome[]> {
    return this.#charger.attemptAll(requests, today, complete);
  }

  /**
   * The sandbox test clock: everything due as of `asOf` for one integrator, charged now in this call:
   * due dates reached, then every pending charge whose attempt is due (first attempts and retries), `asOf` counting
   * as the day of each attempt, and charges that waited for their tenant past their confirm-by day failed. Returns
   * the attempts that succeeded, those that failed (with the charges that waited too long) and those now waiting for
   * their tenant.
   */
  async runAsOf(
    integratorId: string,
    asOf: string,
  ): Promise<{ charged: number; failed: number; waiting: number }> {
    await this.reach(asOf, { integratorId, enqueue: false });
    const due: AttemptRequest[] = await rows(
      this.db,
      qb
        .selectFrom('schedule_charges')
        .select((eb) => [
          'schedule_id',
          eb.cast<string>('due_date', 'text').as('due_date'),
          eb('attempts', '+', eb.lit(1)).as('attempt'),
        ])
        .where('integrator_id', '=', integratorId)
        .where('status', '=', 'pending')
        .where('next_attempt_on', '<=', asDate(asOf))
        .orderBy('due_date')
        .orderBy('schedule_id'),
    );
    const counts = { charged: 0, failed: 0, waiting: 0 };
    for (const { payment_id } of await this.#waitedTooLong(asOf, integratorId)) {
      await this.expireWaiting(payment_id);
      counts.failed++;
    }
    for (let i = 0; i < due.length; i += CHARGES_PER_JOB) {
      for (const outcome of await this.#charger.attemptAll(due.slice(i, i + CHARGES_PER_JOB), asOf)) {
        if (outcome === 'succeeded') counts.charged++;
        else if (outcome === 'failed') counts.failed++;
        else if (outcome === 'waiting') counts.waiting++;
      }
    }
    return counts;
  }
}
