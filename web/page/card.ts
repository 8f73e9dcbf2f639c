/** Card checks the form makes before anything leaves the page; the processor checks again. */

import { type CardBrand, cardBrand, luhnValid } from '../../src/shared/card-numbers.ts';

export { CARD_BRAND_NAMES as BRAND_NAMES } from '../../src/shared/display.ts';
export { cardBrand };

export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** "4242424242424242" -> "4242 4242 4242 4242" (Amex: 4-6-5). */
export function formatCardNumber(value: string): string {
  const digits = digitsOf(value).slice(0, 19);
  const groups = cardBrand(digits) === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
  const parts: string[] = [];
  let at = 0;
  for (const size of groups) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  return parts.join(' ');
}

/** "1229", "12/29", "12 / 2029" -> month and four-digit year. */
export function parseExpiry(value: string): { month: number; year: number } | undefined {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(value.replace(/\s*\/\s*/, '/'));
  if (!match) return undefined;
  const month = Number(match[1]);
  const rawYear = match[2] ?? '';
  const year = rawYear.length === 2 ? 2000 + Number(rawYear) : Number(rawYear);
  if (month < 1 || month > 12) return undefined;
  return { month, year };
}

/** "12" -> "12 / ", "122" -> "12 / 2": typing the slash is optional. */
export function formatExpiry(value: string, deleting: boolean): string {
  const digits = digitsOf(value).slice(0, 4);
  if (digits.length < 2) return digits;
  if (digits.length === 2) return deleting ? digits : `${digits} / `;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

export interface CardFields {
  number: string;
  expiry: string;
  cvc: string;
}

export type CardErrors = Partial<Record<keyof CardFields, string>>;

export function cardNumberError(value: string): string | undefined {
  const digits = digitsOf(value);
  if (digits.length === 0) return 'Enter your card number.';
  if (digits.length < 12 || !luhnValid(digits)) return 'Your card number is invalid.';
  return undefined;
}

export function expiryError(value: string, now: Date): string | undefined {
  if (value.trim() === '') return 'Enter the expiry date.';
  const expiry = parseExpiry(value);
  if (!expiry) return 'Enter the expiry date as MM / YY.';
  const year = now.getFullYear();
  const month = now.getMonth() + 1;
  if (expiry.year < year || (expiry.year === year && expiry.month < month)) return 'Your card has expired.';
  if (expiry.year > year + 20) return 'Your card’s expiry year is invalid.';
  return undefined;
}

export function cvcError(value: string, brand: CardBrand): string | undefined {
  if (value.trim() === '') return 'Enter the security code.';
  const length = brand === 'amex' ? 4 : 3;
  if (!new RegExp(`^\\d{${length}}$`).test(value.trim())) {
    return `Your card’s security code is ${length} digits.`;
  }
  return undefined;
}

export function cardErrors(fields: CardFields, now: Date): CardErrors {
  const errors: CardErrors = {};
  const number = cardNumberError(fields.number);
  if (number) errors.number = number;
  const expiry = expiryError(fields.expiry, now);
  if (expiry) errors.expiry = expiry;
  const cvc = cvcError(fields.cvc, cardBrand(digitsOf(fields.number)));
  if (cvc) errors.cvc = cvc;
  return errors;
}
