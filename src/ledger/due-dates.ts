/**
 * What a tenancy owes and when, as pure functions on calendar dates ("YYYY-MM-DD", UTC days).
 *
 * With an installment plan, the plan's due dates and amounts (up to the end date). Otherwise the rent falls due on
 * `rent_due_day` (clamped to the month's last day) from the first such day on or after the start date, every n
 * months, up to the end date; each due date takes the amount and frequency in force on it, and the step to the next
 * due date is that frequency's.
 */
import { dueDateAfter, FREQUENCY_MONTHS, firstDueDate, type PlanInstallment } from '../shared/dates.ts';
import type { Frequency } from '../shared/vocabulary.ts';

/** The amount and frequency from a day on (a tenancy's first terms apply from its start). */
export interface TermsInForce {
  effective_on: string;
  amount_pence: number;
  frequency: Frequency;
}

export interface TenancyDueTerms {
  start_rent_date: string;
  end_rent_date: string;
  rent_due_day: number;
  /** In ascending effective_on order; at least one. */
  terms: readonly TermsInForce[];
  /** The installment plan's installments in due-date order, or null for rent by the month. */
  installments: readonly PlanInstallment[] | null;
}

/** One due date and what falls due on it. */
export interface RentDue {
  date: string;
  amount_pence: number;
  installment_number: number | null;
}

/** The terms in force on a date: the latest effective on or before it, else the first. */
export function termsOn(terms: readonly TermsInForce[], date: string): TermsInForce {
  let found = terms[0];
  if (!found) throw new Error('A tenancy has at least one terms row');
  for (const row of terms) {
    if (row.effective_on <= date) found = row;
    else break;
  }
  return found;
}

/** Every due date of the tenancy in order, ending with its last on or before the end date. */
export function* dueSeries(tenancy: TenancyDueTerms): Generator<RentDue> {
  if (tenancy.installments) {
    for (const installment of tenancy.installments) {
      if (installment.due_date > tenancy.end_rent_date) return;
      yield {
        date: installment.due_date,
        amount_pence: installment.amount_pence,
        installment_number: installment.installment_number,
      };
    }
    return;
  }
  let date = firstDueDate(tenancy.start_rent_date, tenancy.rent_due_day);
  while (date <= tenancy.end_rent_date) {
    const terms = termsOn(tenancy.terms, date);
    yield { date, amount_pence: terms.amount_pence, installment_number: null };
    date = dueDateAfter(date, FREQUENCY_MONTHS[terms.frequency], tenancy.rent_due_day);
  }
}

/** The due dates on or before `through`, and the first one after it (null: none is left). */
export function dueThrough(
  tenancy: TenancyDueTerms,
  through: string,
): { due: RentDue[]; next: RentDue | null } {
  const due: RentDue[] = [];
  for (const item of dueSeries(tenancy)) {
    if (item.date > through) return { due, next: item };
    due.push(item);
  }
  return { due, next: null };
}
