/** Money and dates as a tenant reads them, for the page and for the server's sentences alike. */

import { parseTypedPence } from './money.ts';

const GBP = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' });

/** "£1,217.40". */
export function money(pence: number): string {
  return GBP.format(pence / 100);
}

/** An amount from the API ("1217.40", "-12.00") as a person reads it ("£1,217.40", "-£12.00"). */
export function moneyOf(decimal: string): string {
  const negative = decimal.startsWith('-');
  const pence = parseTypedPence(negative ? decimal.slice(1) : decimal);
  if (pence === undefined) return `£${decimal}`;
  return money(negative ? -pence : pence);
}

const LONG_DATE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A calendar date ("2026-12-01") as "1 December 2026"; anything else as it is. */
export function longDate(isoDate: string): string {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDate : LONG_DATE.format(date);
}

/** 1 → "1st", 22 → "22nd", 13 → "13th". */
export function ordinal(day: number): string {
  const teen = day % 100 >= 11 && day % 100 <= 13;
  const suffix = teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[day % 10] ?? 'th');
  return `${day}${suffix}`;
}
