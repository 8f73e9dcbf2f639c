/**
 * Due-date arithmetic of recurring rent, as pure functions on calendar dates ("YYYY-MM-DD", no time, no zone).
 *
 * A tenancy's rent falls due on `rent_due_day` of every n-th month (n from its `frequency`); in a month shorter
 * than that day, on the month's last day (a 31 in February is the 28th, or the 29th in a leap year; in March it is
 * the 31st again). The series starts with the first due day on or after `start_rent_date` and ends with the last one
 * on or before `end_rent_date`. An installment plan has its own due dates and amounts instead.
 */
import type { Frequency } from './vocabulary.ts';

/** Months between two due dates of each rent frequency. */
export const FREQUENCY_MONTHS: Readonly<Record<Frequency, number>> = {
  every_1_month: 1,
  every_2_month: 2,
  every_3_month: 3,
  every_4_month: 4,
  every_5_month: 5,
  every_half_year: 6,
  every_year: 12,
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

interface YearMonth {
  year: number;
  /** 1 to 12. */
  month: number;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in a month (1 to 12) of a year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parse(date: string): YearMonth & { day: number } {
  const match = DATE.exec(date);
  if (!match) throw new Error(`Not a date: ${date}`);
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

function format(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The calendar date of an instant in UTC: the service's "today". */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const { year, month, day } = parse(date);
  return utcDate(new Date(Date.UTC(year, month - 1, day) + days * DAY_MS));
}

/** The rent's due date in a month: `rentDueDay`, or the month's last day when the month is shorter. */
export function dueDateInMonth(year: number, month: number, rentDueDay: number): string {
  return format(year, month, Math.min(rentDueDay, daysInMonth(year, month)));
}

function shiftMonths({ year, month }: YearMonth, months: number): YearMonth {
  const index = year * 12 + (month - 1) + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/**
 * The due date `months` months after the month of `date`, on `rentDueDay` (clamped to that month). Stepping from a
 * clamped date keeps the due day: from 2026-02-28 with day 31, one month on is 2026-03-31.
 */
export function dueDateAfter(date: string, months: number, rentDueDay: number): string {
  const next = shiftMonths(parse(date), months);
  return dueDateInMonth(next.year, next.month, rentDueDay);
}

/** The first due date of a tenancy: in the month it starts if the due day is not before the start, else the next month. */
export function firstDueDate(startRentDate: string, rentDueDay: number): string {
  const start = parse(startRentDate);
  const inStartMonth = dueDateInMonth(start.year, start.month, rentDueDay);
  return inStartMonth >= startRentDate ? inStartMonth : dueDateAfter(startRentDate, 1, rentDueDay);
}

export interface PlanInstallment {
  installment_number: number;
  due_date: string;
  amount_pence: number;
}

/** What a schedule charges: the rent on the tenancy's series, or the installments of its plan. */
export type ScheduleTerms =
  | {
      kind: 'rent';
      frequency: Frequency;
      rentDueDay: number;
      endRentDate: string;
      /** Charged on each due date. */
      amountPence: number;
    }
  | {
      kind: 'installments';
      endRentDate: string;
      /** In ascending due-date order (onboarding checks it). */
      installments: readonly PlanInstallment[];
    };

/** One (due date, amount) a schedule charges. */
export interface DueCharge {
  due_date: string;
  installment_number: number | null;
  pure_amount_pence: number;
}

/** The due date after `date` (a due date of the schedule), or null when none is left within the tenancy. */
export function nextDueDate(terms: ScheduleTerms, date: string): string | null {
  const next =
    terms.kind === 'rent'
      ? dueDateAfter(date, FREQUENCY_MONTHS[terms.frequency], terms.rentDueDay)
      : terms.installments.find((i) => i.due_date > date)?.due_date;
  return next !== undefined && next <= terms.endRentDate ? next : null;
}

/**
 * The first due date on or after `from`, counting from `anchor` (a due date of the schedule: its first, or the one
 * it would charge next); null when none is left within the tenancy.
 */
export function dueOnOrAfter(terms: ScheduleTerms, anchor: string, from: string): string | null {
  if (terms.kind === 'installments') {
    const floor = anchor > from ? anchor : from;
    const next = terms.installments.find((i) => i.due_date >= floor)?.due_date;
    return next !== undefined && next <= terms.endRentDate ? next : null;
  }
  let date: string | null = anchor <= terms.endRentDate ? anchor : null;
  while (date !== null && date < from) date = nextDueDate(terms, date);
  return date;
}

/** The charge of one due date: the installment due then, or the rent. */
export function chargeFor(terms: ScheduleTerms, dueDate: string): DueCharge {
  if (terms.kind === 'rent') {
    return { due_date: dueDate, installment_number: null, pure_amount_pence: terms.amountPence };
  }
  const installment = terms.installments.find((i) => i.due_date === dueDate);
  if (!installment) throw new Error(`No installment is due on ${dueDate}`);
  return {
    due_date: dueDate,
    installment_number: installment.installment_number,
    pure_amount_pence: installment.amount_pence,
  };
}

/**
 * Everything due from `next` (the schedule's next due date) through `asOf`, and the next due date after `asOf`
 * (null: the tenancy or the plan has ended, so the schedule is complete).
 */
export function dueThrough(
  terms: ScheduleTerms,
  next: string,
  asOf: string,
): { due: DueCharge[]; next: string | null } {
  const due: DueCharge[] = [];
  let date: string | null = next <= terms.endRentDate ? next : null;
  while (date !== null && date <= asOf) {
    due.push(chargeFor(terms, date));
    date = nextDueDate(terms, date);
  }
  return { due, next: date };
}

/**
 * Where a schedule set up on `today` starts: the first due date on or after today, of the tenancy's series from its
 * start (or of the plan); null when none is left within the tenancy.
 */
export function firstDueFrom(terms: ScheduleTerms, startRentDate: string, today: string): string | null {
  if (terms.kind === 'installments') return dueOnOrAfter(terms, today, today);
  return dueOnOrAfter(terms, firstDueDate(startRentDate, terms.rentDueDay), today);
}
