/** A platform's own view of its payouts (the dashboard): its payouts page by page, and what is held and why. */
import { sql } from 'kysely';
import type { Queryable } from '../platform/db/db.ts';
import { newestFirstPage, type Page } from '../platform/db/pages.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { formatPence } from '../shared/money.ts';
import type { PayoutStatus } from './view.ts';

export interface PlatformPayoutFilter {
  /** Only this tenancy's; a reference the integrator does not have is a 404. */
  paymentReference?: string | undefined;
  status?: PayoutStatus | undefined;
  limit: number;
  /** A payout_id: the page starts right after it. */
  startingAfter?: string | undefined;
}

export interface PlatformPayout {
  id: string;
  payout_run_id: string;
  status: PayoutStatus;
  payment_reference: string;
  account_name: string;
  amount_pence: number;
  created_at: Date;
  paid_at: Date | null;
}

/** The integrator's payouts of every tenancy (or one), newest first, one page. */
export async function platformPayouts(
  db: Queryable,
  integratorId: string,
  filter: PlatformPayoutFilter,
): Promise<Page<PlatformPayout>> {
  let query = qb
    .selectFrom('payouts as po')
    .innerJoin('tenancies as t', 't.id', 'po.tenancy_id')
    .select([
      'po.id',
      'po.payout_run_id',
      'po.status',
      't.payment_reference',
      'po.account_name',
      'po.amount_pence',
      'po.created_at',
      'po.paid_at',
    ])
    .where('po.integrator_id', '=', integratorId);
  if (filter.paymentReference !== undefined) {
    const tenancy = await firstRow(
      db,
      qb
        .selectFrom('tenancies')
        .select('id')
        .where('integrator_id', '=', integratorId)
        .where('payment_reference', '=', filter.paymentReference),
    );
    if (!tenancy) {
      throw new ServiceError('not_found', `No tenancy with payment reference "${filter.paymentReference}".`);
    }
    query = query.where('po.tenancy_id', '=', tenancy.id);
  }
  if (filter.status !== undefined) query = query.where('po.status', '=', filter.status);
  if (filter.startingAfter !== undefined) {
    const cursor = await firstRow(
      db,
      qb
        .selectFrom('payouts')
        .select('id')
        .where('id', '=', filter.startingAfter)
        .where('integrator_id', '=', integratorId),
    );
    if (!cursor) {
      throw new ServiceError(
        'invalid_request',
        `Invalid querystring: starting_after: No payout ${filter.startingAfter}. Pass the payout_id of the last payout of the page you have.`,
      );
    }
  }
  const page = await newestFirstPage(db, query, {
    table: 'payouts',
    alias: 'po',
    limit: filter.limit,
    startingAfter: filter.startingAfter,
  });
  return { ...page, rows: page.rows.map((row) => ({ ...row, amount_pence: Number(row.amount_pence) })) };
}

/**
 * SQL: a live payout line of `kind` carries payment `p`'s rent (payment), what its lost dispute took back (dispute),
 * or refund `r`'s rent part (refund).
 */
function inLivePayout(kind: 'payment' | 'dispute' | 'refund') {
  const of = kind === 'refund' ? sql`l.refund_id = r.id` : sql`l.payment_id = p.id`;
  return sql<boolean>`EXISTS (SELECT 1 FROM payout_lines l WHERE ${of} AND l.kind = ${sql.lit(kind)} AND l.active)`;
}

/** Why a tenancy's rent is not paid out: the kinds a page can tell apart, each with its sentence. */
export type HoldKind = 'payee_not_payable' | 'payee_awaiting_approval' | 'negative_carried' | 'disputed';

export interface PlatformHold {
  payment_reference: string;
  kind: HoldKind;
  /** What is held (negative_carried: what the next payouts must make up, below 0). */
  amount_pence: number;
  reason: string;
}

/**
 * Each of the integrator's tenancies with rent under an open dispute that is not paid out: the rent of those payments
 * waits until the dispute is won (paid out then) or lost (taken back).
 */
export async function disputedHolds(db: Queryable, integratorId: string): Promise<PlatformHold[]> {
  const found = await rows(
    db,
    qb
      .selectFrom('payments as p')
      .innerJoin('tenancies as t', 't.id', 'p.tenancy_id')
      .select((eb) => [
        't.payment_reference',
        eb.fn.sum<string>('p.pure_amount_pence').as('amount_pence'),
        sql<string[]>`array_agg(p.id ORDER BY p.created_at, p.id)`.as('payment_ids'),
      ])
      .where('p.integrator_id', '=', integratorId)
      .where('p.dispute_status', '=', 'open')
      .where('p.status', '=', 'succeeded')
      .where(({ not }) => not(inLivePayout('payment')))
      .groupBy('t.payment_reference'),
  );
  return found.map((row) => {
    const amount = Number(row.amount_pence);
    const payments = row.payment_ids.join(', ');
    return {
      payment_reference: row.payment_reference,
      kind: 'disputed' as const,
      amount_pence: amount,
      reason:
        `The tenant disputed ${row.payment_ids.length === 1 ? 'a payment' : 'payments'} (${payments}): their rent ` +
        `(${formatPence(amount)}) is held until the dispute ends; paid out if it is won, taken back if it is lost.`,
    };
  });
}

/** The sentence of a tenancy whose refunds and lost disputes outweigh the rent waiting to be paid out. */
export function negativeCarriedReason(amountPence: number): string {
  return (
    `Refunds and lost disputes took back ${formatPence(-amountPence)} more than the rent waiting to be paid out: ` +
    'the difference is deducted from the tenancy’s next payouts.'
  );
}

/** A tenancy's landlord account as onboarded. */
export interface TenancyAccount {
  recipient_bank_sort_code: string;
  recipient_bank_account_number: string;
  recipient_bank_account_name: string;
}

/** The integrator's tenancies whose landlord account `heldAccount` says a run holds back. */
export async function accountHeldTenancies(
  db: Queryable,
  integratorId: string,
  heldAccount: (tenancy: TenancyAccount) => boolean,
): Promise<string[]> {
  const accounts = await rows(
    db,
    qb
      .selectFrom('tenancies')
      .select([
        'id',
        'recipient_bank_sort_code',
        'recipient_bank_account_number',
        'recipient_bank_account_name',
      ])
      .where('integrator_id', '=', integratorId),
  );
  return accounts.filter((tenancy) => heldAccount(tenancy)).map((tenancy) => tenancy.id);
}

/**
 * The integrator's tenancies whose rent can be held back (a superset): those whose account `heldAccount` says a run
 * holds back, those with a succeeded refund not yet deducted from a payout or a failed one that was, and those with a
 * dispute lost and not yet deducted. Read without going through every payment the integrator ever took.
 */
export async function holdCandidates(
  db: Queryable,
  integratorId: string,
  heldAccount: (tenancy: TenancyAccount) => boolean,
): Promise<string[]> {
  const accounts = await accountHeldTenancies(db, integratorId, heldAccount);
  const deductions = await rows(
    db,
    qb
      .selectFrom('refunds as r')
      .innerJoin('payments as p', 'p.id', 'r.payment_id')
      .select('p.tenancy_id')
      .where('p.integrator_id', '=', integratorId)
      .where(({ eb, or, and, not }) => {
        const deducted = inLivePayout('refund');
        return or([
          and([eb('r.status', '=', 'succeeded'), not(deducted)]),
          and([eb('r.status', '=', 'failed'), deducted]),
        ]);
      })
      .union(
        qb
          .selectFrom('payments as p')
          .select('p.tenancy_id')
          .where('p.integrator_id', '=', integratorId)
          .where('p.dispute_status', '=', 'lost')
          .where(({ not }) => not(inLivePayout('dispute'))),
      ),
  );
  return [...new Set([...accounts, ...deductions.map((row) => row.tenancy_id)])];
}
