import { Type } from 'typebox';
import type { Actor } from '../audit/actor.ts';
import { AuditEntrySchema } from '../audit/schemas.ts';
import { actorView } from '../audit/view.ts';
import type { HeldPayout } from '../payouts/payable.ts';
import type { PayoutRun, PayoutService, PendingPayee } from '../payouts/service.ts';
import { type PayoutRunRow, PayoutRunView, payoutRunView } from '../payouts/view.ts';
import { ServiceError } from '../platform/errors.ts';
import { IdString } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';
import { Money } from './operator-views.ts';

/** A payout run in the path. */
export const RunParams = Type.Object({ payout_run_id: IdString('prun', 'a payout run') });

const HeldView = Type.Object({
  integrator_id: Type.String(),
  payment_reference: Type.String({ description: 'The tenancy whose rent was held back.' }),
  amount: Money,
  reason: Type.String({ description: 'Why, and what to do about it.' }),
});

const RunAccess = {
  created_by: Type.Union([AuditEntrySchema.properties.actor, Type.Null()], {
    description:
      'Who made the run, as the audit log names actors (a person: dashboard_user with user_id, email and role; ' +
      'or operator_token, cli); null for runs made before this was recorded.',
  }),
  may_confirm: Type.Boolean({ description: 'Whether you may confirm this run now.' }),
  confirm_refusal: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why you may not, for the page to say: your role, the run’s status, or in production having made it ' +
      'yourself (another person must confirm it); null when you may.',
  }),
};

const { items: _items, ...summaryProperties } = PayoutRunView.properties;

export const ConsoleRunSummary = Type.Object(
  { ...summaryProperties, ...RunAccess },
  { title: 'ConsoleRunSummary' },
);

export const ConsoleRun = Type.Object(
  {
    ...PayoutRunView.properties,
    ...RunAccess,
    held: Type.Array(HeldView, {
      description:
        'The tenancies this run held back when it was made, with the reason (none for older runs).',
    }),
  },
  { title: 'ConsoleRun' },
);

export function heldView(held: HeldPayout) {
  return {
    integrator_id: held.integrator_id,
    payment_reference: held.payment_reference,
    amount: formatPence(held.amount_pence),
    reason: held.reason,
  };
}

function runAccess(payouts: PayoutService, run: PayoutRunRow, viewer: Actor) {
  const refusal = payouts.confirmRefusal(run, viewer);
  return {
    created_by: run.created_by === null ? null : actorView(run.created_by),
    may_confirm: refusal === undefined,
    confirm_refusal: refusal ?? null,
  };
}

export function consoleRunSummary(payouts: PayoutService, run: PayoutRunRow, viewer: Actor) {
  const { items: _none, ...summary } = payoutRunView(run, []);
  return { ...summary, ...runAccess(payouts, run, viewer) };
}

/** The run with its payouts, what it held back, who made it and whether the viewer may confirm it. */
export async function consoleRun(
  payouts: PayoutService,
  found: PayoutRun | undefined,
  id: string,
  viewer: Actor,
) {
  if (!found) throw new ServiceError('not_found', `No payout run ${id}.`);
  return {
    ...payoutRunView(found.run, found.items),
    ...runAccess(payouts, found.run, viewer),
    held: (await payouts.heldBy(found.run.id)).map(heldView),
  };
}

/** A landlord account in a path: its 6-digit sort code and 8-digit account number, e.g. 123456-12345678. */
export const PayeeParams = Type.Object({
  payee_id: Type.String({
    pattern: '^\\d{6}-\\d{8}$',
    description:
      'The sort code and account number, digits only, joined by a hyphen, as the pending list gives it.',
    examples: ['123456-12345678'],
  }),
});

export const PayeeView = Type.Object(
  {
    payee_id: Type.String({ description: 'sort code-account number, for the approve request.' }),
    sort_code: Type.String(),
    account_number: Type.String(),
    account_name: Type.String(),
    tenancies: Type.Integer({ description: 'Tenancies whose rent waits for this account’s approval.' }),
    amount: { ...Money, description: 'Their rent held back in all.' },
    integrator_ids: Type.Array(Type.String()),
  },
  { title: 'PendingPayee' },
);

export function payeeView(payee: PendingPayee) {
  return {
    payee_id: `${payee.sort_code}-${payee.account_number}`,
    sort_code: payee.sort_code,
    account_number: payee.account_number,
    account_name: payee.account_name,
    tenancies: payee.tenancies,
    amount: formatPence(payee.amount_pence),
    integrator_ids: payee.integrator_ids,
  };
}
