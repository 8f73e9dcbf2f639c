/** How the operator console writes rates, ages, bank details and who did something. */

import type { Actor, ConsoleIntegrator, Payout, RunStatus } from './types.ts';

export const STATUS_NAMES: Record<ConsoleIntegrator['status'], string> = {
  active: 'Active',
  suspended: 'Suspended',
};

export const ENVIRONMENT_NAMES: Record<ConsoleIntegrator['environment'], string> = {
  sandbox: 'Sandbox',
  production: 'Production',
};

/** A rate from 0 to 1 as a percentage with at most one decimal ("2.5 %"); none as a dash. */
export function percentOf(rate: number | null): string {
  if (rate === null) return '—';
  const percent = Math.round(rate * 1000) / 10;
  return `${percent.toLocaleString('en-GB', { maximumFractionDigits: 1 })} %`;
}

/** A sort code as banks print it: "123456" → "12-34-56". */
export function sortCodeOf(digits: string): string {
  return /^\d{6}$/.test(digits) ? digits.replace(/(\d{2})(\d{2})(\d{2})/, '$1-$2-$3') : digits;
}

/** Who made something, in words: a person's email, a token, the command line; null when it was not recorded. */
export function actorName(actor: Actor | null): string {
  if (!actor) return 'not recorded';
  switch (actor.type) {
    case 'dashboard_user':
      return String(actor.email);
    case 'operator_token':
      return actor.via === 'cli' ? 'the operator token (command line)' : 'the operator token';
    case 'cli':
      return actor.os_user ? `the command line (${String(actor.os_user)})` : 'the command line';
    case 'system':
      return 'rentpay';
    default:
      return actor.type.replace(/_/g, ' ');
  }
}

/** Origins typed in one field, separated by spaces or commas. */
export function originsOf(typed: string): string[] {
  return typed.split(/[\s,]+/).filter((origin) => origin !== '');
}

export const RUN_STATUS_NAMES: Record<RunStatus, string> = {
  created: 'Waiting for confirmation',
  confirmed: 'Confirmed',
  canceled: 'Canceled',
};

export const PAYOUT_STATUS_NAMES: Record<Payout['status'], string> = {
  created: 'In this run',
  paid: 'Paid',
  canceled: 'Canceled',
};
