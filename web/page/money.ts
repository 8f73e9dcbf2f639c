/** Pence inside, two-place decimal strings at the edges, as on the server. */

import { money } from '../../src/shared/display.ts';

const DECIMAL = /^(\d{1,8})(?:\.(\d{1,2}))?$/;
/** Thousands written the British way: "1,200.00" (commas every three digits, or none at all). */
const GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?$/;

/** Pounds as a person types them ("1200", "£1,200.00") or as the API sends them ("1200.00"), in pence. */
export function parsePence(value: string): number | undefined {
  const typed = value.trim().replace(/^£\s*/, '');
  if (typed.includes(',') && !GROUPED.test(typed)) return undefined;
  const match = DECIMAL.exec(typed.replace(/,/g, ''));
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export function formatPence(pence: number): string {
  return `${Math.floor(pence / 100)}.${String(pence % 100).padStart(2, '0')}`;
}

// Money and dates are written once, for the page and the server's sentences.
export { longDate, money } from '../../src/shared/display.ts';

/** An amount from the API ("1217.40") as the tenant reads it ("£1,217.40"). */
export function moneyOf(decimal: string): string {
  const pence = parsePence(decimal);
  return pence === undefined ? `£${decimal}` : money(pence);
}

export interface Fee {
  percent: string;
  fixed: string;
}

/** The server's rule: round_half_up(pure × percent) + fixed. */
export function feePence(purePence: number, fee: Fee | undefined): number {
  if (!fee) return 0;
  const bps = parsePence(fee.percent) ?? 0;
  return Math.floor((purePence * bps + 5_000) / 10_000) + (parsePence(fee.fixed) ?? 0);
}
