/** Pence inside, two-place decimal strings at the edges, as on the server. */

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

const GBP = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' });

/** Money as the tenant reads it: "£1,217.40". */
export function money(pence: number): string {
  return GBP.format(pence / 100);
}

/** An amount from the API ("1217.40") as the tenant reads it ("£1,217.40"). */
export function moneyOf(decimal: string): string {
  const pence = parsePence(decimal);
  return pence === undefined ? `£${decimal}` : money(pence);
}

const LONG_DATE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A date from the API ("2026-12-01") as the tenant reads it ("1 December 2026"). */
export function longDate(isoDate: string): string {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDate : LONG_DATE.format(date);
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
