import { amountInRange, PURE_AMOUNT_LIMITS, paymentAmounts } from '../payments/fees.ts';
import { paymentEventData } from '../payments/service.ts';
import type { PaymentRow } from '../payments/view.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJobs, type JobSpec } from '../platform/jobs/queue.ts';
import { formatPence } from '../platform/money.ts';
import type { PaymentProcessor, ProcessorOutcome } from '../processors/processor.ts';
import { recordEvents } from '../webhooks/record-event.ts';
import { addDays, type DueCharge, dueThrough } from './dates.ts';
import { recordScheduleEvent } from './service.ts';
import { type ScheduleDetail, scheduleDetailSql, scheduleTerms } from './view.ts';

/** Payload `{as_of?}`: reaches every schedule's due dates up to as_of (default today) and enqueues their charges. */
export const SCHEDULES_RUN_JOB = 'schedules.run';
/** Payload `{charges: [{schedule_id, due_date, attempt}]}`: one attempt at each of up to CHARGES_PER_JOB charges. */
export const SCHEDULE_CHARGE_JOB = 'schedule.charge';
/** Attempts one charge job makes: their payments and events are recorded in one transaction. */
export const CHARGES_PER_JOB = 20;
/** After a failed first attempt, the next ones are this many days after it: day 1, then day 3. */
export const RETRY_AFTER_DAYS: readonly number[] = [1, 3];
/** Refusals that another attempt cannot change: the card needs its holder (3DS), or is gone; the amount is outside the limits. */
export const FINAL_FAILURES: ReadonlySet<string> = new Set([
  'authentication_required',
  'card_unavailable',
  'invalid_token',
  'amount_out_of_range',
]);
/** A charge job may fail (the processor unreachable) and be retried by the job system for about two days. */
const CHARGE_JOB_MAX_ATTEMPTS = 48;
const BATCH = 500;
/** Processor calls one job makes at once. */
const PROCESSOR_LANES = 8;

export interface ChargeKey {
  schedule_id: string;
  due_date: string;
}

/** Attempt number `attempt` (1, 2, 3) at a due date's charge. */
export interface AttemptRequest extends ChargeKey {
  attempt: number;
}

/** What one attempt did: charged, refused, or nothing (another worker recorded this attempt already). */
export type AttemptOutcome = 'succeeded' | 'failed' | 'skipped';

interface ChargeContext {
  schedule_id: string;
  due_date: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempts: number;
  first_attempt_on: string | null;
  installment_number: number | null;
  pure_amount_pence: number;
  fee_pence: number;
  integrator_id: string;
  user_id: string;
  tenancy_id: string;
  session_id: string;
  saved_card_id: string;
  payment_reference: string;
  card_status: string;
  card_processor: string;
  processor_token: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  external_user_id: number;
  email: string;
}

const CARD_UNAVAILABLE = {
  code: 'card_unavailable',
  message: 'The saved card this schedule charges has been deleted.',
};

/** The processor key of one attempt: the same attempt, asked again after a crash or by two workers, charges once. */
export function attemptKey(key: ChargeKey, attempt: number): string {
  return `${key.schedule_id}:${key.due_date}:${attempt}`;
}

/**
 * Jobs for these attempts, CHARGES_PER_JOB to a job. `again`: attempts whose earlier job is over without recording
 * them; their new jobs have no dedupe key (the charge row, locked, says which job is the live one).
 */
export function chargeJobs(requests: AttemptRequest[], again = false): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (let i = 0; i < requests.length; i += CHARGES_PER_JOB) {
    const charges = requests.slice(i, i + CHARGES_PER_JOB);
    jobs.push({
      kind: SCHEDULE_CHARGE_JOB,
      payload: { charges },
      // An attempt is enqueued once (queued_attempt, under the charge's row lock); the key says so again.
      ...(again
        ? {}
        : { dedupeKey: `${SCHEDULE_CHARGE_JOB}:${attemptKey(charges[0]!, charges[0]!.attempt)}` }),
      maxAttempts: CHARGE_JOB_MAX_ATTEMPTS,
    });
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
  const ids = await enqueueJobs(tx, clock, chargeJobs(requests, again));
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
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {}

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
    const locked = await tx.query<{ id: string }>(
      `SELECT id FROM schedules
        WHERE status IN ('active', 'paused') AND next_due_date <= $1 AND ($2::text IS NULL OR integrator_id = $2)
        ORDER BY next_due_date
        LIMIT ${BATCH}
        FOR UPDATE SKIP LOCKED`,
      [asOf, options.integratorId ?? null],
    );
    if (locked.length === 0) return { schedules: 0, written: [] };
    const rows = await tx.query<ScheduleDetail>(
      `${scheduleDetailSql()}
        WHERE s.id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
      [locked.map((row) => row.id)],
    );
    const charges: Record<string, unknown>[] = [];
    const moves: { id: string; status: string; next_due_date: string | null }[] = [];
    const pausedNow: string[] = [];
    for (const row of rows) {
      let status = row.status;
      if (status === 'active' && !row.tenancy_active) {
        status = 'paused';
        pausedNow.push(row.id);
      }
      const { due, next } = dueThrough(scheduleTerms(row), row.next_due_date!, asOf);
      if (status === 'active') {
        for (const charge of due) charges.push(chargeRow(row, charge));
      }
      moves.push({ id: row.id, status: next === null ? 'completed' : status, next_due_date: next });
    }
    const inserted =
      charges.length === 0
        ? []
        : await tx.query<ChargeKey>(
            `INSERT INTO schedule_charges (schedule_id, due_date, integrator_id, installment_number, pure_amount_pence,
                                           fee_pence, status, queued_attempt, next_attempt_on, created_at, updated_at)
             SELECT x.schedule_id, x.due_date, x.integrator_id, x.installment_number, x.pure_amount_pence, x.fee_pence,
                    'pending', $2, x.due_date, $3, $3
               FROM jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date, integrator_id text,
                    installment_number integer, pure_amount_pence bigint, fee_pence bigint)
             ON CONFLICT (schedule_id, due_date) DO NOTHING
             RETURNING schedule_id, due_date::text AS due_date`,
            [charges, options.enqueue ? 1 : 0, now],
          );
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
    return { schedules: rows.length, written: inserted };
  }

  /**
   * Enqueues the next attempt of every pending charge due by `asOf` that has no live job for it: retries whose day has
   * come, charges written without a job, and attempts whose job is over (failed for good: the processor unreachable,
   * or without an outcome, for as long as the job retried) without recording them, which are asked again with the
   * same key. Returns how many.
   */
  async enqueueDue(asOf: string): Promise<number> {
    let total = 0;
    for (;;) {
      const queued = await this.db.transaction(async (tx) => {
        const rows = await tx.query<AttemptRequest & { again: boolean }>(
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
          [asOf, this.clock.now()],
        );
        const request = ({ schedule_id, due_date, attempt }: AttemptRequest) => ({
          schedule_id,
          due_date,
          attempt: Number(attempt),
        });
        await enqueueAttempts(tx, this.clock, rows.filter((r) => !r.again).map(request));
        await enqueueAttempts(tx, this.clock, rows.filter((r) => r.again).map(request), true);
        return rows.length;
      });
      total += queued;
      if (queued < BATCH) return total;
    }
  }

  /**
   * One attempt at a due date's charge, off-session at the processor, recorded as a payment of the schedule (with
   * its payment_success or payment_failed event). See attemptAll.
   */
  async attempt(key: ChargeKey, attempt: number, today: string): Promise<AttemptOutcome> {
    const [outcome] = await this.attemptAll([{ ...key, attempt }], today);
    return outcome!;
  }

  /**
   * Attempts at several charges: each at the processor (off-session, the key of its attempt), then every answer
   * recorded in one transaction: a payment of the schedule each, with its payment_success or payment_failed event
   * and, when given, the job's completion (`complete`). A refusal is retried on the days of RETRY_AFTER_DAYS after the
   * first attempt, except FINAL_FAILURES; `today` is the day these attempts count as made on. An attempt no longer
   * due (recorded already, by another worker or an earlier run of the job; or its charge withdrawn) is skipped. If the
   * processor cannot be reached for one, the others are recorded and then this throws, so the job makes that attempt
   * again later with the same key.
   */
  async attemptAll(
    requests: AttemptRequest[],
    today: string,
    complete?: (tx: Queryable) => Promise<void>,
  ): Promise<AttemptOutcome[]> {
    // Each attempt is marked started, and committed, before the processor is asked: from then on a pause or cancel
    // leaves its charge for this attempt to record. An attempt is due when it is the next one and its charge is still
    // pending, or when it was started already (whatever the charge's status): asked again with the same key, the
    // processor answers what it did the first time. Locked in one order, so overlapping jobs cannot deadlock.
    const ready = await this.db.query<ChargeKey>(
      `WITH ready AS (
         SELECT c.schedule_id, c.due_date, x.attempt
           FROM schedule_charges c
           JOIN jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date, attempt integer)
             ON c.schedule_id = x.schedule_id AND c.due_date = x.due_date
          WHERE c.attempts = x.attempt - 1 AND (c.status = 'pending' OR c.started_attempt >= x.attempt)
          ORDER BY c.schedule_id, c.due_date
          FOR UPDATE OF c)
       UPDATE schedule_charges c SET started_attempt = GREATEST(c.started_attempt, ready.attempt), updated_at = $2
         FROM ready WHERE c.schedule_id = ready.schedule_id AND c.due_date = ready.due_date
       RETURNING c.schedule_id, c.due_date::text AS due_date`,
      [requests, this.clock.now()],
    );
    const contexts =
      ready.length === 0
        ? []
        : await this.db.query<ChargeContext>(
            `SELECT c.schedule_id, c.due_date::text AS due_date, c.status, c.attempts,
                    c.first_attempt_on::text AS first_attempt_on, c.installment_number, c.pure_amount_pence,
                    c.fee_pence, s.integrator_id, s.user_id, s.tenancy_id, s.session_id, s.saved_card_id,
                    t.payment_reference, k.status AS card_status, k.processor AS card_processor, k.processor_token,
                    k.brand, k.last4, k.exp_month, k.exp_year, u.external_id AS external_user_id, u.email
               FROM jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date)
               JOIN schedule_charges c ON c.schedule_id = x.schedule_id AND c.due_date = x.due_date
               JOIN schedules s ON s.id = c.schedule_id
               JOIN tenancies t ON t.id = s.tenancy_id
               JOIN users u ON u.id = s.user_id
               JOIN saved_cards k ON k.id = s.saved_card_id`,
            [ready],
          );
    const byKey = new Map(contexts.map((c) => [attemptKey(c, 0), c]));
    const answers: (Answer | undefined)[] = new Array(requests.length);
    const errors: unknown[] = [];
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const index = next++;
        const request = requests[index]!;
        const charge = byKey.get(attemptKey(request, 0));
        if (charge === undefined || Number(charge.attempts) !== request.attempt - 1) continue;
        try {
          answers[index] = { request, charge, result: await this.#charge(charge, request.attempt) };
        } catch (error) {
          errors.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PROCESSOR_LANES, requests.length) }, lane));
    const answered = answers.filter((a): a is Answer => a !== undefined);
    const recorded =
      answered.length === 0
        ? new Map<string, AttemptOutcome>()
        : await this.db.transaction(async (tx) => {
            const outcomes = await this.#record(tx, answered, today);
            if (errors.length === 0) await complete?.(tx);
            return outcomes;
          });
    if (errors.length > 0) throw errors[0];
    return requests.map((request) => recorded.get(attemptKey(request, request.attempt)) ?? 'skipped');
  }

  /** The processor's answer to one attempt (nothing is asked when the amount is out of range or the card is gone). */
  async #charge(charge: ChargeContext, attempt: number): Promise<OffSessionResult> {
    // The rent (or an installment) may have changed since set-up: an amount no payment may have is not charged.
    if (!amountInRange(Number(charge.pure_amount_pence))) {
      return {
        ok: false,
        processorPaymentId: null,
        code: 'amount_out_of_range',
        message: `The amount (${formatPence(Number(charge.pure_amount_pence))}) is outside the payment limits (${PURE_AMOUNT_LIMITS}).`,
      };
    }
    if (charge.card_status !== 'active' || charge.card_processor !== this.processor.name) {
      return { ok: false, processorPaymentId: null, ...CARD_UNAVAILABLE };
    }
    const outcome = await this.processor.chargeOffSession({
      idempotencyKey: attemptKey(charge, attempt),
      userId: charge.user_id,
      metadata: {
        schedule_id: charge.schedule_id,
        due_date: charge.due_date,
        session_id: charge.session_id,
        integrator_id: charge.integrator_id,
      },
      amountPence: Number(charge.pure_amount_pence) + Number(charge.fee_pence),
      currency: 'GBP',
      method: 'card',
      paymentToken: charge.processor_token,
      reference: charge.payment_reference,
    });
    if (outcome.status === 'pending') {
      throw new Error(
        `The processor has no outcome yet for ${attemptKey(charge, attempt)}; asking again later.`,
      );
    }
    return offSessionResult(outcome);
  }

  /** Records the answers not recorded yet (the charge rows locked), in a few set-based statements and an event each. */
  async #record(tx: Queryable, answers: Answer[], today: string): Promise<Map<string, AttemptOutcome>> {
    const outcomes = new Map<string, AttemptOutcome>();
    if (answers.length === 0) return outcomes;
    const keys = answers.map(({ charge }) => ({
      schedule_id: charge.schedule_id,
      due_date: charge.due_date,
    }));
    // Locked in one order, so two transactions over overlapping charges cannot deadlock.
    const current = await tx.query<
      ChargeKey & { status: ChargeContext['status']; attempts: number; schedule_status: string }
    >(
      `SELECT c.schedule_id, c.due_date::text AS due_date, c.status, c.attempts, s.status AS schedule_status
         FROM schedule_charges c
         JOIN jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date)
           ON c.schedule_id = x.schedule_id AND c.due_date = x.due_date
         JOIN schedules s ON s.id = c.schedule_id
        ORDER BY c.schedule_id, c.due_date
        FOR UPDATE OF c`,
      [keys],
    );
    const state = new Map(current.map((c) => [attemptKey(c, 0), c]));
    const now = this.clock.now();
    const payments: Record<string, unknown>[] = [];
    const updates: Record<string, unknown>[] = [];
    const paid: string[] = [];
    const events: { answer: Answer; retryOn: string | null }[] = [];
    for (const answer of answers) {
      const { request, charge, result } = answer;
      const row = state.get(attemptKey(charge, 0));
      // Another worker (or the test clock) recorded this attempt first; its payment is the one.
      if (!row || Number(row.attempts) >= request.attempt) continue;
      const firstOn = charge.first_attempt_on ?? today;
      const retryIn = RETRY_AFTER_DAYS[request.attempt - 1];
      // Only a charge of a schedule still charging is retried: one paused or canceled while this attempt was at the
      // processor is withdrawn (canceled) unless this attempt succeeded or failed for good.
      const withdrawn =
        row.status === 'canceled' ||
        (row.status === 'pending' &&
          (row.schedule_status === 'paused' || row.schedule_status === 'canceled'));
      const final = result.ok || FINAL_FAILURES.has(result.code) || retryIn === undefined;
      const retryOn = final || withdrawn || row.status !== 'pending' ? null : addDays(firstOn, retryIn);
      const status = result.ok
        ? 'succeeded'
        : retryOn !== null
          ? 'pending'
          : withdrawn && !final
            ? 'canceled'
            : row.status === 'pending' || row.status === 'canceled'
              ? 'failed'
              : row.status;
      const id = newId('pay');
      payments.push({
        id,
        integrator_id: charge.integrator_id,
        session_id: charge.session_id,
        user_id: charge.user_id,
        tenancy_id: charge.tenancy_id,
        status: result.ok ? 'succeeded' : 'failed',
        pure_amount_pence: Number(charge.pure_amount_pence),
        fee_pence: Number(charge.fee_pence),
        card_brand: charge.brand,
        card_last4: charge.last4,
        card_exp_month: charge.exp_month,
        card_exp_year: charge.exp_year,
        reference: charge.payment_reference,
        schedule_id: charge.schedule_id,
        installment_number: charge.installment_number,
        failure_code: result.ok ? null : result.code,
        failure_message: result.ok ? null : result.message,
        idempotency_key: attemptKey(charge, request.attempt),
        processor_token: charge.processor_token,
        processor_payment_id: result.processorPaymentId,
        saved_card_id: charge.saved_card_id,
      });
      updates.push({
        schedule_id: charge.schedule_id,
        due_date: charge.due_date,
        status,
        attempts: request.attempt,
        first_attempt_on: firstOn,
        next_attempt_on: retryOn,
        last_payment_id: id,
      });
      if (result.ok) paid.push(charge.session_id);
      events.push({ answer, retryOn });
      outcomes.set(attemptKey(charge, request.attempt), result.ok ? 'succeeded' : 'failed');
    }
    if (payments.length === 0) return outcomes;
    const inserted = await insertPayments(tx, payments, this.processor.name, now);
    // A payment in the schedule's session holding an attempt's key (the Client API refuses such keys, but one stored
    // before it did) must not roll back the other charges, already made: that attempt's payment takes a key of its own.
    const missing = payments.filter((p) => !inserted.some((row) => row.id === p.id));
    if (missing.length > 0) {
      inserted.push(
        ...(await insertPayments(
          tx,
          missing.map((p) => ({ ...p, idempotency_key: `${p.idempotency_key}#${p.id}` })),
          this.processor.name,
          now,
        )),
      );
    }
    await tx.query(
      `UPDATE schedule_charges c
          SET status = x.status, attempts = x.attempts, first_attempt_on = x.first_attempt_on,
              next_attempt_on = COALESCE(x.next_attempt_on, c.next_attempt_on), last_payment_id = x.last_payment_id,
              updated_at = $2
         FROM jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date, status text, attempts integer,
              first_attempt_on date, next_attempt_on date, last_payment_id text)
        WHERE c.schedule_id = x.schedule_id AND c.due_date = x.due_date`,
      [updates, now],
    );
    if (paid.length > 0) {
      // As for any payment: its session (the one the schedule was set up in) is completed by a success.
      await tx.query(
        `UPDATE sessions SET completed_at = $2
          WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND completed_at IS NULL`,
        [paid, now],
      );
    }
    const byId = new Map(inserted.map((p) => [p.id, p]));
    await recordEvents(
      tx,
      this.clock,
      events.map(({ answer, retryOn }, i) => {
        const payment = byId.get(String(payments[i]!.id))!;
        const who = {
          external_id: answer.charge.external_user_id,
          email: answer.charge.email,
          payment_reference: answer.charge.payment_reference,
        };
        return answer.result.ok
          ? {
              integratorId: payment.integrator_id,
              type: 'payment_success',
              data: paymentEventData(payment, who),
            }
          : {
              integratorId: payment.integrator_id,
              type: 'payment_failed',
              data: paymentEventData(payment, who, { retry_on: retryOn }),
            };
      }),
    );
    return outcomes;
  }

  /**
   * The sandbox test clock (contract §5): everything due as of `asOf` for one integrator, charged now in this call:
   * due dates reached, then every pending charge whose attempt is due (first attempts and retries), `asOf` counting
   * as the day of each attempt. Returns the attempts that succeeded and those that failed.
   */
  async runAsOf(integratorId: string, asOf: string): Promise<{ charged: number; failed: number }> {
    await this.reach(asOf, { integratorId, enqueue: false });
    const due = await this.db.query<AttemptRequest>(
      `SELECT schedule_id, due_date::text AS due_date, attempts + 1 AS attempt FROM schedule_charges
        WHERE integrator_id = $1 AND status = 'pending' AND next_attempt_on <= $2
        ORDER BY due_date, schedule_id`,
      [integratorId, asOf],
    );
    const counts = { charged: 0, failed: 0 };
    for (let i = 0; i < due.length; i += CHARGES_PER_JOB) {
      for (const outcome of await this.attemptAll(due.slice(i, i + CHARGES_PER_JOB), asOf)) {
        if (outcome === 'succeeded') counts.charged++;
        else if (outcome === 'failed') counts.failed++;
      }
    }
    return counts;
  }
}

/** Inserts scheduled payments; one whose key its session holds already is left out (not in the answer). */
function insertPayments(
  tx: Queryable,
  payments: Record<string, unknown>[],
  processor: string,
  now: Date,
): Promise<PaymentRow[]> {
  return tx.query<PaymentRow>(
    `INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                           amount_pence, method, card_brand, card_last4, card_exp_month, card_exp_year, reference,
                           schedule_id, installment_number, failure_code, failure_message, idempotency_key, processor,
                           processor_token, processor_payment_id, saved_card_id, created_at, updated_at)
     SELECT x.id, x.integrator_id, x.session_id, x.user_id, x.tenancy_id, x.status, x.pure_amount_pence, x.fee_pence,
            x.pure_amount_pence + x.fee_pence, 'card', x.card_brand, x.card_last4, x.card_exp_month, x.card_exp_year,
            x.reference, x.schedule_id, x.installment_number, x.failure_code, x.failure_message, x.idempotency_key, $2,
            x.processor_token, x.processor_payment_id, x.saved_card_id, $3, $3
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, integrator_id text, session_id text, user_id text,
            tenancy_id text, status text, pure_amount_pence bigint, fee_pence bigint, card_brand text,
            card_last4 text, card_exp_month integer, card_exp_year integer, reference text, schedule_id text,
            installment_number integer, failure_code text, failure_message text, idempotency_key text,
            processor_token text, processor_payment_id text, saved_card_id text)
     ON CONFLICT (session_id, idempotency_key) DO NOTHING
     RETURNING *`,
    [payments, processor, now],
  );
}

/** One attempt's processor answer, with what it is about. */
interface Answer {
  request: AttemptRequest;
  charge: ChargeContext;
  result: OffSessionResult;
}

type OffSessionResult =
  | { ok: true; processorPaymentId: string }
  | { ok: false; processorPaymentId: string | null; code: string; message: string };

/** An off-session answer: authorised, or a refusal; a charge that would need the customer is one that failed. */
function offSessionResult(outcome: Exclude<ProcessorOutcome, { status: 'pending' }>): OffSessionResult {
  switch (outcome.status) {
    case 'authorised':
      return { ok: true, processorPaymentId: outcome.processorPaymentId };
    case 'refused':
      return {
        ok: false,
        processorPaymentId: outcome.processorPaymentId,
        code: outcome.code,
        message: outcome.message,
      };
    default:
      return {
        ok: false,
        processorPaymentId: outcome.processorPaymentId,
        code: 'authentication_required',
        message: 'This card needs the cardholder to authenticate each payment.',
      };
  }
}

function chargeRow(schedule: ScheduleDetail, charge: DueCharge): Record<string, unknown> {
  return {
    schedule_id: schedule.id,
    due_date: charge.due_date,
    integrator_id: schedule.integrator_id,
    installment_number: charge.installment_number,
    pure_amount_pence: charge.pure_amount_pence,
    fee_pence: paymentAmounts(charge.pure_amount_pence, schedule.fees.card).feePence,
  };
}
