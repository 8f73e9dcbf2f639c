/** Money, days and moments as a tenant reads them on paper: pounds, UK dates, UK time. */
import { longDate, money } from '../shared/display.ts';
import { METHOD_LABELS, type PaymentMethod, WALLET_METHODS } from '../shared/vocabulary.ts';

export { longDate, money };

const LONDON_DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'Europe/London',
});
const LONDON_TIME = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'Europe/London',
});
const RENT_MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const SHORT_DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "27 November 2026, 14:05 UK time". */
export function ukMoment(at: Date): string {
  return `${LONDON_DAY.format(at)}, ${LONDON_TIME.format(at)} UK time`;
}

/** A calendar date ("2026-12-01") as "1 Dec 2026". */
export function shortDate(date: string): string {
  return SHORT_DAY.format(new Date(`${date}T00:00:00Z`));
}

/** "December 2026 rent, due 1 Dec 2026": what a due date is to the tenant. */
export function rentOf(dueDate: string): string {
  return `${RENT_MONTH.format(new Date(`${dueDate}T00:00:00Z`))} rent, due ${shortDate(dueDate)}`;
}

/** A balance: "£1,200.00", or "£50.00 in credit" when paid ahead. */
export function balance(pence: number): string {
  return pence < 0 ? `${money(-pence)} in credit` : money(pence);
}

const BRAND_NAMES: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  unionpay: 'UnionPay',
};

/** "Visa •••• 4242", "Apple Pay (Visa •••• 4242)", "Alipay". */
export function paidWith(payment: {
  method: PaymentMethod;
  card_brand: string | null;
  card_last4: string | null;
}): string {
  const method = METHOD_LABELS[payment.method];
  if (!payment.card_last4) return method;
  const card = `${BRAND_NAMES[payment.card_brand ?? ''] ?? 'Card'} •••• ${payment.card_last4}`;
  return (WALLET_METHODS as readonly string[]).includes(payment.method) ? `${method} (${card})` : card;
}

/** A name for a file: the letters, digits, dashes and underscores of `text`, at most 60. */
export function fileSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60) || 'statement';
}
