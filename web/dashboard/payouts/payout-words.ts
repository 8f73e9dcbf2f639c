/** What the payouts pages say about statuses and holds, in words: pure, so it is tested without a browser. */

import type { HoldKind, PayoutStatus } from './types.ts';

export const PAYOUT_STATUS_NAMES: Record<PayoutStatus, string> = {
  created: 'Waiting for confirmation',
  paid: 'Paid',
  canceled: 'Canceled',
};

/** The status filter's choices: any status first. */
export const STATUS_OPTIONS: readonly (readonly [string, string])[] = [
  ['', 'Any status'],
  ['created', 'Waiting for confirmation (in a run not yet confirmed)'],
  ['paid', 'Paid'],
  ['canceled', 'Canceled (its run was canceled)'],
];

/** A hold: its name, what it means, and what unblocks the rent. */
export interface HoldWords {
  name: string;
  means: string;
  unblocks: string;
}

export const HOLD_WORDS: Record<HoldKind, HoldWords> = {
  payee_not_payable: {
    name: 'Landlord’s account cannot be paid',
    means: 'The landlord’s bank details are not a UK sort code and account number a payout run can pay.',
    unblocks:
      'Onboard the tenancy again with the right sort code, account number and name: the next run pays what is held.',
  },
  payee_awaiting_approval: {
    name: 'Waiting for the operator’s approval',
    means:
      'In production, the first payout to a landlord’s account waits until the operator approves the account.',
    unblocks:
      'The operator approves the account; the next run then pays what is held. Nothing to do on your side.',
  },
  negative_carried: {
    name: 'Refunds carried into next payouts',
    means: 'Refunds and lost disputes took back more rent than was waiting to be paid out.',
    unblocks: 'The difference comes off the tenancy’s next payouts, until rent paid in makes it up.',
  },
  disputed: {
    name: 'Payment under dispute',
    means: 'The tenant disputed a payment with their bank: its rent waits until the dispute ends.',
    unblocks: 'The dispute ending: won, the rent is paid out; lost, it is taken back.',
  },
};

export function holdWords(kind: string): HoldWords {
  return (
    HOLD_WORDS[kind as HoldKind] ?? { name: kind.replace(/_/g, ' '), means: '', unblocks: 'See the reason.' }
  );
}
