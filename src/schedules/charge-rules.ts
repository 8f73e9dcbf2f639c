/**
 * The rules of a schedule's charges, as pure functions: what reaching a date does to a schedule, the processor key of
 * each attempt, and what an attempt's answer makes of its charge (paid, retried, failed or withdrawn).
 */
import type { Static } from 'typebox';
import { paymentAmounts } from '../payments/fees.ts';
import { Col } from '../platform/db/checked-sql.ts';
import { addDays, dueThrough } from '../shared/dates.ts';
import type { ScheduleStatus } from '../shared/vocabulary.ts';
import { type ScheduleDetail, scheduleTerms } from './view.ts';

/** After a failed first attempt, the next ones are this many days after it: day 1, then day 3. */
export const RETRY_AFTER_DAYS: readonly number[] = [1, 3];
/** Refusals that another attempt cannot change: the card needs its holder (3DS), or is gone; the amount is outside the limits. */
export const FINAL_FAILURES: ReadonlySet<string> = new Set([
  'authentication_required',
  'card_unavailable',
  'invalid_token',
  'amount_out_of_range',
]);

/** `requires_action`: the bank wants the tenant to authenticate the charge; it waits for them until its confirm-by day. */
export const CHARGE_STATUSES = ['pending', 'succeeded', 'failed', 'canceled', 'requires_action'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

export const CHARGE_KEY = Col.row({ schedule_id: Col.text, due_date: Col.text });
export type ChargeKey = Static<typeof CHARGE_KEY>;

/** Attempt number `attempt` (1, 2, 3) at a due date's charge. */
export const ATTEMPT_REQUEST = Col.row({ ...CHARGE_KEY.properties, attempt: Col.int });
export type AttemptRequest = Static<typeof ATTEMPT_REQUEST>;

/** The processor key of one attempt: the same attempt, asked again after a crash or by two workers, charges once. */
export function attemptKey(key: ChargeKey, attempt: number): string {
  return `${key.schedule_id}:${key.due_date}:${attempt}`;
}

/** A schedule_charges row to write for a due date reached. */
export interface NewCharge extends ChargeKey {
  integrator_id: string;
  installment_number: number | null;
  pure_amount_pence: number;
  fee_pence: number;
}

/** What reaching a date does to one schedule. */
export interface ReachedSchedule {
  /** Active until now, but its tenancy is no longer active: paused instead of charged (schedule_paused). */
  pausedNow: boolean;
  /** A charge for each due date reached; none for a paused schedule, which skips them. */
  charges: NewCharge[];
  status: ScheduleStatus;
  next_due_date: string | null;
}

/**
 * Reaching `asOf` (inclusive) from the schedule's next due date: an active schedule gets a charge for each due date,
 * a paused one skips them; the schedule moves on to its next due date, or is completed when the tenancy (or its plan)
 * has none left. An active schedule whose tenancy is no longer active is paused instead.
 */
export function reachSchedule(schedule: ScheduleDetail, asOf: string): ReachedSchedule {
  const pausedNow = schedule.status === 'active' && !schedule.tenancy_active;
  const status = pausedNow ? 'paused' : schedule.status;
  const { due, next } = dueThrough(scheduleTerms(schedule), schedule.next_due_date!, asOf);
  return {
    pausedNow,
    charges:
      status === 'active'
        ? due.map((charge) => ({
            schedule_id: schedule.id,
            due_date: charge.due_date,
            integrator_id: schedule.integrator_id,
            installment_number: charge.installment_number,
            pure_amount_pence: charge.pure_amount_pence,
            fee_pence: paymentAmounts(charge.pure_amount_pence, schedule.fees.card).feePence,
          }))
        : [],
    status: next === null ? 'completed' : status,
    next_due_date: next,
  };
}

/** An attempt's answer and the charge as it stands when it is recorded (the charge row locked). */
export interface AttemptAnswer {
  attempt: number;
  /** The day of the charge's first attempt: this one's (`today`) if it is the first. */
  firstAttemptOn: string;
  /** `waitsForTenant`: refused because the bank wants the tenant, who can still confirm it (SCA). */
  result: { ok: true } | { ok: false; code: string; waitsForTenant?: boolean };
  chargeStatus: ChargeStatus;
  scheduleStatus: string;
}

/**
 * The last day a tenant may confirm a charge their bank wants authenticated: the last day a refused charge would
 * have been retried. The day after, it fails.
 */
export function confirmByOf(firstAttemptOn: string): string {
  return addDays(firstAttemptOn, RETRY_AFTER_DAYS[RETRY_AFTER_DAYS.length - 1]!);
}

/**
 * Where an attempt leaves its charge: paid; waiting for the tenant to authenticate it (`requires_action`); retried on
 * the days of RETRY_AFTER_DAYS after the first attempt, except FINAL_FAILURES; or failed. Only a charge of a schedule still charging is retried: one paused or canceled while the
 * attempt was at the processor is withdrawn (canceled) unless the attempt succeeded or failed for good.
 */
export function afterAttempt(answer: AttemptAnswer): { status: ChargeStatus; retryOn: string | null } {
  const { result, chargeStatus } = answer;
  // A charge still due whose bank wants the tenant waits for them (no retry: off session it would be refused again).
  if (
    !result.ok &&
    result.waitsForTenant &&
    chargeStatus === 'pending' &&
    answer.scheduleStatus !== 'paused' &&
    answer.scheduleStatus !== 'canceled'
  ) {
    return { status: 'requires_action', retryOn: null };
  }
  const retryIn = RETRY_AFTER_DAYS[answer.attempt - 1];
  const withdrawn =
    chargeStatus === 'canceled' ||
    (chargeStatus === 'pending' &&
      (answer.scheduleStatus === 'paused' || answer.scheduleStatus === 'canceled'));
  const final = result.ok || FINAL_FAILURES.has(result.code) || retryIn === undefined;
  const retryOn =
    final || withdrawn || chargeStatus !== 'pending' ? null : addDays(answer.firstAttemptOn, retryIn);
  const status = result.ok
    ? 'succeeded'
    : retryOn !== null
      ? 'pending'
      : withdrawn && !final
        ? 'canceled'
        : chargeStatus === 'pending' || chargeStatus === 'canceled'
          ? 'failed'
          : chargeStatus;
  return { status, retryOn };
}
