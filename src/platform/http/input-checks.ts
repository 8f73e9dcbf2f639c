/** Checks of request text that JSON Schema cannot express but PostgreSQL needs: each a message, or undefined. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const DATE_MESSAGE = 'Date has wrong format or is not a real date. Use YYYY-MM-DD.';

/** Text PostgreSQL cannot store (NUL) or that is not Unicode (an unpaired surrogate) is refused, not a 500. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'Null characters are not allowed.';
  if (LONE_SURROGATE.test(value)) return 'Enter valid Unicode text.';
  return undefined;
}

/**
 * Every date the APIs take lies in these years: no rent is due before or after them, and work that walks dates (a
 * ledger's due dates, a reminder run) stays bounded whatever a caller sends.
 */
export const EARLIEST_DATE = '1900-01-01';
export const LATEST_DATE = '2199-12-31';
export const DATE_RANGE_MESSAGE = `Enter a date from ${EARLIEST_DATE} to ${LATEST_DATE}.`;

/** A well-formed date (YYYY-MM-DD, or the date part of a date-time) outside EARLIEST_DATE … LATEST_DATE. */
export function outOfDateRange(value: string): boolean {
  const day = value.slice(0, 10);
  return day < EARLIEST_DATE || day > LATEST_DATE;
}

/** The schema's date format accepts year 0000 (no calendar year); and every date lies in the range above. */
export function dateProblem(value: string): string | undefined {
  if (value.startsWith('0000')) return DATE_MESSAGE;
  return outOfDateRange(value) ? DATE_RANGE_MESSAGE : undefined;
}
