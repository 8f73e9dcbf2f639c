import type { Queryable } from '../platform/db/db.ts';
import { cursorExists, newestFirstPage } from '../platform/db/pages.ts';
import { qb } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import type { PaymentRow, PaymentRowNarrowing } from './view.ts';

export const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const;

export interface PaymentFilter {
  /** Only this integrator's payments (and a cursor must be one of them). */
  integratorId?: string;
  /** The integrator's user_id (users.external_id); needs integratorId. */
  userId?: number;
  status?: (typeof PAYMENT_STATUSES)[number];
  sessionId?: string;
  limit: number;
  /** A payment_id: the page starts right after it. */
  startingAfter?: string;
}

/**
 * Payments newest first, one page: the operator's list and an integrator's own. Paging by (created_at, id) of the
 * cursor, compared in SQL so the timestamp keeps its full precision; a payment inserted meanwhile never shifts a
 * later page.
 */
export async function listPayments(
  db: Queryable,
  filter: PaymentFilter,
): Promise<{ rows: PaymentRow[]; has_more: boolean }> {
  let query = qb
    .selectFrom('payments as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .selectAll('p')
    .select('u.external_id as user_external_id')
    .$narrowType<PaymentRowNarrowing>();
  if (filter.integratorId !== undefined) query = query.where('p.integrator_id', '=', filter.integratorId);
  if (filter.userId !== undefined) query = query.where('u.external_id', '=', filter.userId);
  if (filter.status !== undefined) query = query.where('p.status', '=', filter.status);
  if (filter.sessionId !== undefined) query = query.where('p.session_id', '=', filter.sessionId);
  if (
    filter.startingAfter !== undefined &&
    !(await cursorExists(db, 'payments', filter.startingAfter, filter.integratorId))
  ) {
    throw new ServiceError(
      'invalid_request',
      `Invalid querystring: starting_after: No payment ${filter.startingAfter}. Pass the payment_id of the last payment of the page you have.`,
    );
  }
  return newestFirstPage(db, query, {
    table: 'payments',
    alias: 'p',
    limit: filter.limit,
    startingAfter: filter.startingAfter,
  });
}
