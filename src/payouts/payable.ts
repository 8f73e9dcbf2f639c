/**
 * What each tenancy has to pay out as of a day, and whether a run pays it or holds it back (its landlord account):
 * the one reading of payable rent that runs, holds and the home page's counts share.
 */
import { type Static, Type } from 'typebox';
import type { Clock } from '../platform/clock/clock.ts';
import type { ServiceEnv } from '../platform/config/config.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';
import { qb, rows } from '../platform/db/query-builder.ts';
import { utcDate } from '../shared/dates.ts';
import { type PayoutAccount, payoutReadiness } from './bank-account.ts';
import { PAYABLE_LINES, PAYABLE_LINES_OF_TENANCIES } from './payable-sql.ts';

const PAYABLE_LINE = Col.row({
  tenancy_id: Col.text,
  kind: Type.Enum(['payment', 'refund', 'dispute', 'refund_reversal']),
  payment_id: Col.text,
  refund_id: Col.nullable(Col.text),
  // numeric, as the rent parts are sums of bigints: read as a string.
  amount_pence: Col.text,
  integrator_id: Col.text,
  payment_reference: Col.text,
  recipient_bank_sort_code: Col.text,
  recipient_bank_account_number: Col.text,
  recipient_bank_account_name: Col.text,
});
const PAYABLE = sqlStatement(PAYABLE_LINE, PAYABLE_LINES);
const PAYABLE_OF_TENANCIES = sqlStatement(PAYABLE_LINE, PAYABLE_LINES_OF_TENANCIES);

export type PayableLine = Omit<Static<typeof PAYABLE_LINE>, 'amount_pence'> & { amount_pence: number };

/** A tenancy with rent to pay out that a run leaves out, and why. */
export interface HeldPayout {
  integrator_id: string;
  payment_reference: string;
  amount_pence: number;
  kind: 'payee_not_payable' | 'payee_awaiting_approval';
  reason: string;
}

/** Held only because its landlord account has never been paid (production): the account awaiting approval. */
export type Held = HeldPayout & { awaiting?: PayoutAccount & { account_name: string } };

export interface TenancyPayable {
  lines: PayableLine[];
  amount_pence: number;
  first: PayableLine;
}

/** A tenancy's landlord account: whether a run may pay it now, or its hold (kind and reason). */
export function accountHold(
  approved: Set<string> | undefined,
  tenancy: Pick<
    Static<typeof PAYABLE_LINE>,
    'recipient_bank_sort_code' | 'recipient_bank_account_number' | 'recipient_bank_account_name'
  >,
):
  | { ready: true; account: PayoutAccount }
  | { ready: false; kind: HeldPayout['kind']; reason: string; awaiting?: PayoutAccount } {
  const readiness = payoutReadiness(
    tenancy.recipient_bank_sort_code,
    tenancy.recipient_bank_account_number,
    tenancy.recipient_bank_account_name,
  );
  if (!readiness.ready) return { ready: false, kind: 'payee_not_payable', reason: readiness.reason };
  const { sort_code, account_number } = readiness.account;
  if (approved && !approved.has(`${sort_code}:${account_number}`)) {
    return {
      ready: false,
      kind: 'payee_awaiting_approval',
      reason: `The account ${sort_code} ${account_number} has not been paid before: approve it first (rentpay payouts approve).`,
      awaiting: readiness.account,
    };
  }
  return readiness;
}

/** Production: the accounts approved for payouts ("sort_code:account_number"); undefined elsewhere. */
export async function approvedAccounts(tx: Queryable, env: ServiceEnv): Promise<Set<string> | undefined> {
  if (env !== 'production') return undefined;
  const approvals = await rows(tx, qb.selectFrom('payee_approvals').select(['sort_code', 'account_number']));
  return new Set(approvals.map((row) => `${row.sort_code}:${row.account_number}`));
}

/**
 * What each tenancy has to pay out as of a day, split into what a run pays and what it holds back; of the tenancies
 * `of.tenancyIds` names only, when given; `of.approved`: the approved accounts, when the caller has read them.
 */
export async function payableAsOf(
  tx: Queryable,
  clock: Clock,
  env: ServiceEnv,
  asOf: string,
  of: { tenancyIds?: string[]; approved?: Set<string> | undefined } = {},
): Promise<{
  paying: (TenancyPayable & { account: PayoutAccount })[];
  held: Held[];
  /** Tenancies whose refunds and lost disputes outweigh their new rent: the negative waits for the next run. */
  carried: { integrator_id: string; payment_reference: string; amount_pence: number }[];
}> {
  const today = utcDate(clock.now());
  const { tenancyIds } = of;
  const lines = await (tenancyIds === undefined
    ? PAYABLE.rows(tx, [asOf, today])
    : PAYABLE_OF_TENANCIES.rows(tx, [asOf, today, tenancyIds]));
  const byTenancy = new Map<string, TenancyPayable>();
  for (const row of lines) {
    const line = { ...row, amount_pence: Number(row.amount_pence) };
    const entry = byTenancy.get(line.tenancy_id) ?? { lines: [], amount_pence: 0, first: line };
    entry.lines.push(line);
    entry.amount_pence += line.amount_pence;
    byTenancy.set(line.tenancy_id, entry);
  }
  const approved = 'approved' in of ? of.approved : await approvedAccounts(tx, env);
  const paying: (TenancyPayable & { account: PayoutAccount })[] = [];
  const held: Held[] = [];
  const carried: { integrator_id: string; payment_reference: string; amount_pence: number }[] = [];
  for (const entry of byTenancy.values()) {
    const { first } = entry;
    const tenancy = {
      integrator_id: first.integrator_id,
      payment_reference: first.payment_reference,
      amount_pence: entry.amount_pence,
    };
    // Nothing to pay (or refunds exceed new rent): the lines wait, and a negative is carried to the next run.
    if (entry.amount_pence < 0) carried.push(tenancy);
    if (entry.amount_pence <= 0) continue;
    const account = accountHold(approved, first);
    if (account.ready) paying.push({ ...entry, account: account.account });
    else
      held.push({
        ...tenancy,
        kind: account.kind,
        reason: account.reason,
        ...(account.awaiting
          ? { awaiting: { ...account.awaiting, account_name: first.recipient_bank_account_name.trim() } }
          : {}),
      });
  }
  return { paying, held, carried };
}
