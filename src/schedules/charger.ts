import { type Static, Type } from 'typebox';
import { paymentEventData } from '../payments/events.ts';
import { insertRecurringPayments } from '../payments/recurring-payments.ts';
import { enqueueSettlement, settlesAtOnce } from '../payments/settlement.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { newId } from '../platform/ids.ts';
import type { PaymentProcessor, ProcessorOutcome } from '../processors/processor.ts';
import { completeSessions } from '../sessions/completion.ts';
import { addDays } from '../shared/dates.ts';
import { amountInRange, formatPence, PURE_AMOUNT_LIMITS } from '../shared/money.ts';
import { recordEvents } from '../webhooks/record-event.ts';
import {
  type AttemptRequest,
  afterAttempt,
  attemptKey,
  CHARGE_KEY,
  CHARGE_STATUSES,
  type ChargeKey,
  confirmByOf,
} from './charge-rules.ts';

/** Processor calls one job makes at once. */
const PROCESSOR_LANES = 8;

/**
 * What one attempt did: charged, refused, left waiting for the tenant to authenticate it, or nothing (another worker
 * recorded this attempt already).
 */
export type AttemptOutcome = 'succeeded' | 'failed' | 'waiting' | 'skipped';

const START_ATTEMPTS = sqlStatement(
  CHARGE_KEY,
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
);

const CHARGE_CONTEXT = Col.row({
  ...CHARGE_KEY.properties,
  status: Type.Enum(CHARGE_STATUSES),
  attempts: Col.int,
  first_attempt_on: Col.nullable(Col.text),
  installment_number: Col.nullable(Col.int),
  pure_amount_pence: Col.int,
  fee_pence: Col.int,
  integrator_id: Col.text,
  user_id: Col.text,
  tenancy_id: Col.text,
  session_id: Col.text,
  saved_card_id: Col.text,
  payment_reference: Col.text,
  card_status: Col.text,
  card_processor: Col.text,
  processor_token: Col.text,
  brand: Col.text,
  last4: Col.text,
  exp_month: Col.int,
  exp_year: Col.int,
  external_user_id: Col.int,
  email: Col.text,
});
type ChargeContext = Static<typeof CHARGE_CONTEXT>;

const CHARGE_CONTEXTS = sqlStatement(
  CHARGE_CONTEXT,
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
);

const LOCK_CHARGES = sqlStatement(
  Col.row({
    ...CHARGE_KEY.properties,
    status: Type.Enum(CHARGE_STATUSES),
    attempts: Col.int,
    schedule_status: Col.text,
  }),
  `SELECT c.schedule_id, c.due_date::text AS due_date, c.status, c.attempts, s.status AS schedule_status
     FROM schedule_charges c
     JOIN jsonb_to_recordset($1::jsonb) AS x(schedule_id text, due_date date)
       ON c.schedule_id = x.schedule_id AND c.due_date = x.due_date
     JOIN schedules s ON s.id = c.schedule_id
    ORDER BY c.schedule_id, c.due_date
    FOR UPDATE OF c`,
);

const CARD_UNAVAILABLE = {
  code: 'card_unavailable',
  message: 'The saved card this schedule charges has been deleted.',
};

/**
 * Attempts at due charges: each at the processor off-session, with the key of its attempt, then recorded as a
 * payment of the schedule with its payment_success or payment_failed event, and the charge paid, retried or failed.
 * An attempt is recorded once, whoever makes it and however often (see Scheduler).
 */
export class ScheduleCharger {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {}

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
    const ready = await START_ATTEMPTS.rows(this.db, [requests, this.clock.now()]);
    const contexts = ready.length === 0 ? [] : await CHARGE_CONTEXTS.rows(this.db, [ready]);
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
    return offSessionResult(outcome, this.processor.confirmWithCustomer !== undefined);
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
    const current = await LOCK_CHARGES.rows(tx, [keys]);
    const state = new Map(current.map((c) => [attemptKey(c, 0), c]));
    const now = this.clock.now();
    const payments: Record<string, unknown>[] = [];
    const updates: Record<string, unknown>[] = [];
    const paid: string[] = [];
    const events: { answer: Answer; retryOn: string | null; confirmBy: string | null }[] = [];
    for (const answer of answers) {
      const { request, charge, result } = answer;
      const row = state.get(attemptKey(charge, 0));
      // Another worker (or the test clock) recorded this attempt first; its payment is the one.
      if (!row || Number(row.attempts) >= request.attempt) continue;
      const firstOn = charge.first_attempt_on ?? today;
      const { status, retryOn } = afterAttempt({
        attempt: request.attempt,
        firstAttemptOn: firstOn,
        result,
        chargeStatus: row.status,
        scheduleStatus: row.schedule_status,
      });
      const waits = status === 'requires_action';
      const id = newId('pay');
      payments.push({
        id,
        integrator_id: charge.integrator_id,
        session_id: charge.session_id,
        user_id: charge.user_id,
        tenancy_id: charge.tenancy_id,
        status: result.ok ? 'succeeded' : waits ? 'requires_action' : 'failed',
        pure_amount_pence: Number(charge.pure_amount_pence),
        fee_pence: Number(charge.fee_pence),
        card_brand: charge.brand,
        card_last4: charge.last4,
        card_exp_month: charge.exp_month,
        card_exp_year: charge.exp_year,
        reference: charge.payment_reference,
        schedule_id: charge.schedule_id,
        installment_number: charge.installment_number,
        failure_code: result.ok || waits ? null : result.code,
        failure_message: result.ok || waits ? null : result.message,
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
        // Waiting for the tenant: the day it fails unless they confirm it.
        next_attempt_on: waits ? addDays(confirmByOf(firstOn), 1) : retryOn,
        last_payment_id: id,
      });
      if (result.ok) paid.push(charge.session_id);
      events.push({ answer, retryOn, confirmBy: waits ? confirmByOf(firstOn) : null });
      outcomes.set(
        attemptKey(charge, request.attempt),
        result.ok ? 'succeeded' : waits ? 'waiting' : 'failed',
      );
    }
    if (payments.length === 0) return outcomes;
    const atOnce = settlesAtOnce(this.processor);
    const inserted = await insertRecurringPayments(tx, payments, this.processor.name, now, atOnce);
    // A payment in the schedule's session holding an attempt's key (the Client API refuses such keys, but one stored
    // before it did) must not roll back the other charges, already made: that attempt's payment takes a key of its own.
    const missing = payments.filter((p) => !inserted.some((row) => row.id === p.id));
    if (missing.length > 0) {
      inserted.push(
        ...(await insertRecurringPayments(
          tx,
          missing.map((p) => ({ ...p, idempotency_key: `${p.idempotency_key}#${p.id}` })),
          this.processor.name,
          now,
          atOnce,
        )),
      );
    }
    const succeeded = inserted.filter((p) => p.status === 'succeeded').map((p) => p.id);
    await enqueueSettlement(tx, this.clock, this.processor, succeeded);
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
      await completeSessions(tx, paid, now);
    }
    const byId = new Map(inserted.map((p) => [p.id, p]));
    await recordEvents(
      tx,
      this.clock,
      events.map(({ answer, retryOn, confirmBy }, i) => {
        const payment = byId.get(String(payments[i]!.id))!;
        const who = {
          external_id: answer.charge.external_user_id,
          email: answer.charge.email,
          payment_reference: answer.charge.payment_reference,
        };
        if (answer.result.ok) {
          return {
            integratorId: payment.integrator_id,
            type: 'payment_success',
            data: paymentEventData(payment, who),
          };
        }
        if (confirmBy !== null) {
          return {
            integratorId: payment.integrator_id,
            type: 'payment_action_required',
            data: paymentEventData(payment, who, {
              action_required: { reason: 'authentication_required', confirm_by: confirmBy },
            }),
          };
        }
        return {
          integratorId: payment.integrator_id,
          type: 'payment_failed',
          data: paymentEventData(payment, who, { retry_on: retryOn }),
        };
      }),
    );
    return outcomes;
  }
}

/** One attempt's processor answer, with what it is about. */
interface Answer {
  request: AttemptRequest;
  charge: ChargeContext;
  result: OffSessionResult;
}

type OffSessionResult =
  | { ok: true; processorPaymentId: string }
  | {
      ok: false;
      processorPaymentId: string | null;
      code: string;
      message: string;
      /** The bank wants the tenant to authenticate it, and they still can (the processor kept the payment). */
      waitsForTenant?: boolean;
    };

/**
 * An off-session answer: authorised, or a refusal. A charge that needs the customer waits for them when the processor
 * can let them complete it later (`canWait`); otherwise it is one that failed.
 */
function offSessionResult(
  outcome: Exclude<ProcessorOutcome, { status: 'pending' }>,
  canWait: boolean,
): OffSessionResult {
  switch (outcome.status) {
    case 'authorised':
      return { ok: true, processorPaymentId: outcome.processorPaymentId };
    case 'refused':
      return {
        ok: false,
        processorPaymentId: outcome.processorPaymentId,
        code: outcome.code,
        message: outcome.message,
        ...(canWait && outcome.code === 'authentication_required' && outcome.processorPaymentId !== null
          ? { waitsForTenant: true }
          : {}),
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
