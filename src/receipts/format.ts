/** Money, days and moments as a tenant reads them on paper: pounds, UK dates, UK time. */
import { longDate, money, paidWith, rentMonth, ukDateTime } from '../shared/display.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';

export { longDate, money };

const SHORT_DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "27 November 2026, 14:05 UK time". */
export function ukMoment(at: Date): string {
  return `${ukDateTime(at)} UK time`;
}

/** A calendar date ("2026-12-01") as "1 Dec 2026". */
export function shortDate(date: string): string {
  return SHORT_DAY.format(new Date(`${date}T00:00:00Z`));
}

/** "December 2026 rent, due 1 Dec 2026": what a due date is to the tenant. */
export function rentOf(dueDate: string): string {
  return `${rentMonth(dueDate)} rent, due ${shortDate(dueDate)}`;
}

/** A balance: "£1,200.00", or "£50.00 in credit" when paid ahead. */
export function balance(pence: number): string {
  return pence < 0 ? `${money(-pence)} in credit` : money(pence);
}

/** "Visa •••• 4242", "Apple Pay (Visa •••• 4242)", "Alipay". */
export function paymentPaidWith(payment: {
  method: PaymentMethod;
  card_brand: string | null;
  card_last4: string | null;
}): string {
  const { method, card_brand: brand, card_last4: last4 } = payment;
  return paidWith(method, last4 ? { brand: brand ?? 'unknown', last4 } : null);
}

/** A name for a file: the letters, digits, dashes and underscores of `text`, at most 60. */
export function fileSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60) || 'statement';
}
