/**
 * The payment search's filters between the form, the address (`#payments?status=failed`) and the API: pure, so
 * they are tested without a browser.
 */

import { formatPence, parseTypedPence } from '../../../src/shared/money.ts';
import { METHOD_LABELS, PAYMENT_METHODS, type PaymentStatus } from '../../../src/shared/vocabulary.ts';

/** The search's filters, in the order of the form; the API takes the same names. */
export const SEARCH_FILTERS = [
  'email',
  'payment_reference',
  'last4',
  'amount',
  'status',
  'method',
  'from',
  'to',
] as const;
export type SearchFilter = (typeof SEARCH_FILTERS)[number];
export type SearchForm = Record<SearchFilter, string>;

export const STATUS_NAMES: Record<PaymentStatus, string> = {
  requires_action: 'Waiting for the tenant',
  processing: 'Processing',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
};

export const STATUS_OPTIONS: readonly (readonly [string, string])[] = [
  ['', 'Any status'],
  ...Object.entries(STATUS_NAMES),
];
export const METHOD_OPTIONS: readonly (readonly [string, string])[] = [
  ['', 'Any method'],
  ...PAYMENT_METHODS.map((method) => [method, METHOD_LABELS[method]] as const),
];

/** The form as the address's query fills it (anything else in the query is left out). */
export function formOf(query: URLSearchParams): SearchForm {
  return Object.fromEntries(SEARCH_FILTERS.map((name) => [name, query.get(name) ?? ''])) as SearchForm;
}

/** The filters the API is asked for: the ones given, trimmed, an amount as the API writes it ("£1,200" → "1200.00"). */
export function filtersOf(form: SearchForm): Partial<Record<SearchFilter, string>> {
  const filters: Partial<Record<SearchFilter, string>> = {};
  for (const name of SEARCH_FILTERS) {
    const value = form[name].trim();
    if (!value) continue;
    const pence = name === 'amount' ? parseTypedPence(value) : undefined;
    filters[name] = pence === undefined ? value : formatPence(pence);
  }
  return filters;
}

function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** What is wrong with the form's fields, by field, before asking the API. */
export function searchErrors(form: SearchForm): Partial<Record<SearchFilter, string>> {
  const errors: Partial<Record<SearchFilter, string>> = {};
  const value = (name: SearchFilter) => form[name].trim();
  if (value('last4') && !/^\d{4}$/.test(value('last4'))) {
    errors.last4 = 'Enter the last 4 digits of the card, e.g. 4242.';
  }
  if (value('amount') && parseTypedPence(value('amount')) === undefined) {
    errors.amount = 'Enter an amount in pounds, e.g. 1200.00.';
  }
  for (const name of ['from', 'to'] as const) {
    if (value(name) && !isDay(value(name))) errors[name] = 'Enter a day as YYYY-MM-DD, e.g. 2026-11-01.';
  }
  if (!errors.from && !errors.to && value('from') && value('to') && value('from') > value('to')) {
    errors.to = 'Enter a day on or after the first day; both days are included.';
  }
  return errors;
}

/** The CSV export of the same filters: every payment they find, no paging. */
export function exportHref(filters: Partial<Record<SearchFilter, string>>): string {
  const query = new URLSearchParams(
    SEARCH_FILTERS.flatMap((name) => (filters[name] ? [[name, filters[name]] as [string, string]] : [])),
  );
  return `/api/dashboard/payments/export.csv${query.size > 0 ? `?${query}` : ''}`;
}

/** How a payment was paid, as a person reads it: "Visa •••• 4242", "Apple Pay (Visa •••• 4242)", "Alipay". */
export function paidWith(payment: {
  method: keyof typeof METHOD_LABELS;
  card: { brand: string; last4: string } | null;
}) {
  const card = payment.card
    ? `${payment.card.brand.charAt(0).toUpperCase()}${payment.card.brand.slice(1)} •••• ${payment.card.last4}`
    : '';
  if (payment.method === 'card') return card || METHOD_LABELS.card;
  return card ? `${METHOD_LABELS[payment.method]} (${card})` : METHOD_LABELS[payment.method];
}
