/** Between the settings forms' text and the API's fields: pure, so it is tested without a browser. */

import { PAYMENT_METHODS, type PaymentMethod } from '../../../src/shared/vocabulary.ts';
import type { MethodFee } from './types.ts';

export type FeeRows = Record<PaymentMethod, MethodFee>;

/** Each method's fee as the form shows it: empty fields for a method without a fee. */
export function feeRowsOf(fees: Record<string, MethodFee>): FeeRows {
  return Object.fromEntries(
    PAYMENT_METHODS.map((method) => [method, fees[method] ?? { percent: '', fixed: '' }]),
  ) as FeeRows;
}

/** The fees to send (the whole list): a method left empty has no fee; one part left empty is 0. */
export function feesBody(rows: FeeRows): Record<string, MethodFee> {
  const body: Record<string, MethodFee> = {};
  for (const method of PAYMENT_METHODS) {
    const percent = rows[method].percent.trim();
    const fixed = rows[method].fixed.trim();
    if (percent === '' && fixed === '') continue;
    body[method] = { percent: percent || '0', fixed: fixed || '0' };
  }
  return body;
}

/** Days before a due date: empty is no reminders (null); anything not a whole number goes as typed, for the API to refuse. */
export function reminderBody(text: string): number | string | null {
  const typed = text.trim();
  if (typed === '') return null;
  return /^\d{1,9}$/.test(typed) ? Number(typed) : typed;
}

/** The allowed origins typed one a line; empty lines are left out. */
export function originsOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The API's errors on allowed_origins (`allowed_origins.2`: the third sent) as one message naming the lines. */
export function originsError(fields: Record<string, string[]>): string | undefined {
  const messages = Object.entries(fields)
    .filter(([path]) => path === 'allowed_origins' || path.startsWith('allowed_origins.'))
    .map(([path, texts]) => {
      const index = /^allowed_origins\.(\d+)$/.exec(path)?.[1];
      return index === undefined ? texts.join(' ') : `Line ${Number(index) + 1}: ${texts.join(' ')}`;
    });
  return messages.length > 0 ? messages.join(' ') : undefined;
}

/** The API's errors on one method's fee (`fees.card.percent`, `fees.card`), and those on the fees as a whole. */
export function feeErrors(fields: Record<string, string[]>): {
  byField: Record<string, string>;
  general: string | undefined;
} {
  const byField: Record<string, string> = {};
  const general: string[] = [];
  for (const [path, texts] of Object.entries(fields)) {
    if (!path.startsWith('fees')) continue;
    if (/^fees\.\w+\.(percent|fixed)$/.test(path)) byField[path] = texts.join(' ');
    else general.push(texts.join(' '));
  }
  return { byField, general: general.length > 0 ? general.join(' ') : undefined };
}
