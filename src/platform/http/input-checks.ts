/** Checks of request text that JSON Schema cannot express but PostgreSQL needs: each a message, or undefined. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const DATE_MESSAGE = 'Date has wrong format or is not a real date. Use YYYY-MM-DD.';

/** Text PostgreSQL cannot store (NUL) or that is not Unicode (an unpaired surrogate) is refused, not a 500. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'Null characters are not allowed.';
  if (LONE_SURROGATE.test(value)) return 'Enter valid Unicode text.';
  return undefined;
}

/** The schema's date format accepts year 0000, which is no calendar year (and PostgreSQL refuses it). */
export function dateProblem(value: string): string | undefined {
  return value.startsWith('0000') ? DATE_MESSAGE : undefined;
}
