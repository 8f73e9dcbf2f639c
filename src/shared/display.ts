/** Money and dates as a tenant reads them, for the page and for the server's sentences alike. */

import { parseTypedPence } from './money.ts';
import { METHOD_LABELS, type PaymentMethod, WALLET_METHODS } from './vocabulary.ts';

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

// A payment's moment in UK time, as the tenant lived it; due dates are calendar dates (UTC).
const UK_DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'Europe/London',
});
const UK_TIME = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'Europe/London',
});
const RENT_MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** A moment as "27 November 2026, 14:05", in UK time. */
export function ukDateTime(at: Date): string {
  return `${UK_DAY.format(at)}, ${UK_TIME.format(at)}`;
}

/** The month a due date's rent is for: "2026-12-01" as "December 2026". */
export function rentMonth(dueDate: string): string {
  return RENT_MONTH.format(new Date(`${dueDate.slice(0, 10)}T00:00:00Z`));
}

/** Card brands as people name them. */
export const CARD_BRAND_NAMES: Readonly<Record<string, string>> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  unionpay: 'UnionPay',
  unknown: 'Card',
};

/** What paid: "Visa •••• 4242", "Apple Pay (Visa •••• 4242)", "Alipay". */
export function paidWith(method: PaymentMethod, card: { brand: string; last4: string } | null): string {
  const label = METHOD_LABELS[method] ?? method;
  if (!card) return label;
  const named = `${CARD_BRAND_NAMES[card.brand] ?? card.brand} •••• ${card.last4}`;
  return (WALLET_METHODS as readonly string[]).includes(method) ? `${label} (${named})` : named;
}
