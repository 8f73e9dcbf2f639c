import type { Queryable } from '../platform/db/db.ts';
import { cursorExists, newestFirstPage } from '../platform/db/pages.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';
import type { PaymentRowNarrowing } from './view.ts';

export const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const;

export interface PaymentFilter {
  /** Only this integrator's payments (and a cursor must be one of them). */
  integratorId?: string;
  /** The integrator's user_id (users.external_id); needs integratorId. */
  userId?: number;
  status?: (typeof PAYMENT_STATUSES)[number];
  sessionId?: string;
  /** The tenant's email starts with this, whatever its case (the whole address finds it too); needs integratorId. */
  emailPrefix?: string;
  /** The payment's own reference, or its tenancy's payment_reference, exactly; needs integratorId. */
  reference?: string;
  /** The card's last 4 digits. */
  last4?: string;
  /** What was charged (fee included) or its rent part, exactly. */
  amountPence?: number;
  method?: PaymentMethod;
  /** Made at or after this instant. */
  createdFrom?: Date;
  /** Made before this instant. */
  createdBefore?: Date;
  limit: number;
  /** A payment_id: the page starts right after it. */
  startingAfter?: string;
}

/** A listed payment: the row, and whose it is (the tenant and the tenancy). */
export type ListedPayment = Awaited<ReturnType<typeof listPayments>>['rows'][number];

/** `value` as a LIKE pattern matching itself followed by anything: its own % _ and \ are taken literally. */
function prefixPattern(value: string): string {
  return `${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function filtered(filter: PaymentFilter) {
  let query = qb
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .innerJoin('tenancies as t', 't.id', 'p.tenancy_id')
    .selectAll('p')
    .select([
      'u.external_id as user_external_id',
      'u.email as user_email',
      'u.first_name as user_first_name',
      'u.last_name as user_last_name',
      't.payment_reference as tenancy_reference',
    ])
    .$narrowType<PaymentRowNarrowing>();
  const { integratorId } = filter;
  if (integratorId !== undefined) query = query.where('p.integrator_id', '=', integratorId);
  if (filter.userId !== undefined) query = query.where('u.external_id', '=', filter.userId);
  if (filter.status !== undefined) query = query.where('p.status', '=', filter.status);
  if (filter.sessionId !== undefined) query = query.where('p.session_id', '=', filter.sessionId);
  if (filter.method !== undefined) query = query.where('p.method', '=', filter.method);
  if (filter.last4 !== undefined) query = query.where('p.card_last4', '=', filter.last4);
  if (filter.createdFrom !== undefined) query = query.where('p.created_at', '>=', filter.createdFrom);
  if (filter.createdBefore !== undefined) query = query.where('p.created_at', '<', filter.createdBefore);
  const { amountPence, emailPrefix, reference } = filter;
  if (amountPence !== undefined) {
    query = query.where((eb) =>
      eb.or([eb('p.amount_pence', '=', amountPence), eb('p.pure_amount_pence', '=', amountPence)]),
    );
  }
  if (emailPrefix !== undefined && integratorId !== undefined) {
    // Users first (their email index, by prefix), then each one's payments newest first.
    query = query.where('p.user_id', 'in', (eb) =>
      eb
        .selectFrom('users')
        .select('id')
        .where('integrator_id', '=', integratorId)
        .where('email_key', 'like', prefixPattern(emailPrefix.toLowerCase())),
    );
  }
  if (reference !== undefined && integratorId !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('p.reference', '=', reference),
        eb(
          'p.tenancy_id',
          '=',
          eb
            .selectFrom('tenancies')
            .select('id')
            .where('integrator_id', '=', integratorId)
            .where('payment_reference', '=', reference),
        ),
      ]),
    );
  }
  return query;
}

/**
 * Payments newest first, one page: the operator's list, an integrator's own, and the dashboard's search. Paging by
 * (created_at, id) of the cursor, compared in SQL so the timestamp keeps its full precision; a payment inserted
 * meanwhile never shifts a later page.
 */
export async function listPayments(db: Queryable, filter: PaymentFilter) {
  if (
    filter.startingAfter !== undefined &&
    !(await cursorExists(db, 'payments', filter.startingAfter, filter.integratorId))
  ) {
    throw new ServiceError(
      'invalid_request',
      `Invalid querystring: starting_after: No payment ${filter.startingAfter}. Pass the payment_id of the last payment of the page you have.`,
    );
  }
  const page = await newestFirstPage(db, filtered(filter), {
    table: 'payments',
    alias: 'p',
    limit: filter.limit,
    startingAfter: filter.startingAfter,
  });
  return { rows: page.rows, has_more: page.has_more };
}

/** One of the integrator's payments with whose it is, as the lists show it; undefined: no such payment of theirs. */
export async function listedPayment(
  db: Queryable,
  integratorId: string,
  paymentId: string,
): Promise<ListedPayment | undefined> {
  return firstRow(db, filtered({ integratorId, limit: 1 }).where('p.id', '=', paymentId));
}

/**
 * Every payment the filter matches, newest first, in pages of `batch` (keyset, never an OFFSET): the caller holds one
 * page at a time, however many there are.
 */
export async function* allPayments(
  db: Queryable,
  filter: Omit<PaymentFilter, 'limit' | 'startingAfter'>,
  batch = 1_000,
): AsyncGenerator<ListedPayment[]> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await newestFirstPage(db, filtered({ ...filter, limit: batch }), {
      table: 'payments',
      alias: 'p',
      limit: batch,
      startingAfter,
    });
    if (page.rows.length > 0) yield page.rows;
    if (!page.has_more) return;
    startingAfter = page.rows.at(-1)!.id;
  }
}
