import { type Static, Type } from 'typebox';
import type { PlatformHold, PlatformPayout } from '../payouts/platform-payouts.ts';
import { PAYOUT_STATUSES } from '../payouts/view.ts';
import { IdString, Timestamp } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';

export const PayoutsQuery = Type.Object(
  {
    payment_reference: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only this tenancy’s payouts.' }),
    ),
    status: Type.Optional(Type.Enum(PAYOUT_STATUSES)),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    starting_after: Type.Optional(
      IdString('po', 'a payout', {
        description: 'A payout_id: the page starts with the payout listed right after it.',
        example: false,
      }),
    ),
  },
  { additionalProperties: false },
);

export const PlatformPayoutView = Type.Object(
  {
    payout_id: Type.String(),
    payout_run_id: Type.String({
      description: 'The run that pays it (the operator makes and confirms runs).',
    }),
    status: Type.Enum(PAYOUT_STATUSES, {
      description:
        'created: in a run not yet confirmed; paid: its run was confirmed; canceled: its run was canceled.',
    }),
    payment_reference: Type.String({ description: 'The tenancy whose rent it pays out.' }),
    payee_name: Type.String({ description: 'The landlord’s account name, as it was when the run was made.' }),
    amount: Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] }),
    created_at: Timestamp,
    paid_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'PlatformPayout' },
);

export function platformPayoutView(row: PlatformPayout): Static<typeof PlatformPayoutView> {
  return {
    payout_id: row.id,
    payout_run_id: row.payout_run_id,
    status: row.status,
    payment_reference: row.payment_reference,
    payee_name: row.account_name,
    amount: formatPence(row.amount_pence),
    created_at: new Date(row.created_at).toISOString(),
    paid_at: row.paid_at === null ? null : new Date(row.paid_at).toISOString(),
  };
}

export const HeldPayoutView = Type.Object(
  {
    payment_reference: Type.String(),
    kind: Type.Enum(['payee_not_payable', 'payee_awaiting_approval', 'negative_carried', 'disputed'], {
      description:
        'payee_not_payable: the landlord’s account is not a UK one a run can pay (fix it by onboarding the ' +
        'tenancy again); payee_awaiting_approval: in production, a first payout to an account waits for the ' +
        'operator’s approval; negative_carried: refunds and lost disputes took back more than the rent waiting; ' +
        'disputed: rent of a payment under an open dispute.',
    }),
    amount: Type.String({
      pattern: '^-?\\d+\\.\\d{2}$',
      description: 'The rent held; below 0 for negative_carried (what the next payouts make up).',
      examples: ['1200.00', '-50.00'],
    }),
    reason: Type.String({ description: 'The same, in a sentence.' }),
  },
  { title: 'HeldPayout' },
);

export function heldPayoutView(hold: PlatformHold): Static<typeof HeldPayoutView> {
  return {
    payment_reference: hold.payment_reference,
    kind: hold.kind,
    amount: formatPence(hold.amount_pence),
    reason: hold.reason,
  };
}
