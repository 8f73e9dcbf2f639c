/**
 * Which rent reminders are due on a day, as a pure function. `rent_due_soon` goes `daysBefore` days before a due
 * date (or on any later day before it, when a run is late); `rent_overdue` goes 1 and 7 days after one (or later).
 * Neither goes for a due date already paid (payments pay the oldest due dates first). Each (due date, kind,
 * days_after_due) is sent at most once; the caller keeps what was sent.
 */
import { addDays } from '../shared/dates.ts';
import { daysBetween, type LedgerPayment, paidThrough } from './balance.ts';
import { dueThrough, type TenancyDueTerms } from './due-dates.ts';

export const RENT_REMINDER_KINDS = ['rent_due_soon', 'rent_overdue'] as const;
export type RentReminderKind = (typeof RENT_REMINDER_KINDS)[number];

/** Days after a due date that rent_overdue is sent. */
export const OVERDUE_REMINDER_DAYS = [1, 7] as const;
/**
 * A due date further in the past than this gets no new reminder: a job that resumes after a long stop, or reminders
 * turned on for an old tenancy, must not send a backlog of stale ones.
 */
export const REMINDER_LOOKBACK_DAYS = 35;

export interface RentReminder {
  kind: RentReminderKind;
  due_date: string;
  /** Negative (days before) for rent_due_soon; 1 or 7 for rent_overdue. */
  days_after_due: number;
  /** What is still unpaid of that due date's rent. */
  amount_due_pence: number;
  /** The tenancy's arrears on the day: what fell due by then less what was paid. */
  arrears_pence: number;
}

export function remindersDue(
  tenancy: TenancyDueTerms,
  payments: readonly LedgerPayment[],
  asOf: string,
  daysBefore: number,
): RentReminder[] {
  const { due } = dueThrough(tenancy, addDays(asOf, daysBefore));
  const paid = paidThrough(payments, asOf);
  const dueByNow = due.filter((d) => d.date <= asOf).reduce((sum, d) => sum + d.amount_pence, 0);
  const arrears = Math.max(0, dueByNow - paid);
  const reminders: RentReminder[] = [];
  let left = paid;
  for (const item of due) {
    const covered = Math.min(left, item.amount_pence);
    left -= covered;
    const unpaid = item.amount_pence - covered;
    if (unpaid === 0) continue;
    const after = daysBetween(item.date, asOf);
    const base = { due_date: item.date, amount_due_pence: unpaid, arrears_pence: arrears };
    if (after < 0 && -after <= daysBefore) {
      reminders.push({ ...base, kind: 'rent_due_soon', days_after_due: -daysBefore });
    }
    if (after > REMINDER_LOOKBACK_DAYS) continue;
    for (const days of OVERDUE_REMINDER_DAYS) {
      if (after >= days) reminders.push({ ...base, kind: 'rent_overdue', days_after_due: days });
    }
  }
  return reminders;
}
