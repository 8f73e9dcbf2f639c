import type { Queryable, SqlParam } from '../platform/db/db.ts';
import { ServiceError } from '../platform/errors.ts';
import type { PaymentRow } from './view.ts';

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
  const where: string[] = [];
  const params: SqlParam[] = [];
  const add = (clause: (n: string) => string, value: SqlParam) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (filter.integratorId !== undefined) add((n) => `p.integrator_id = ${n}`, filter.integratorId);
  if (filter.userId !== undefined) {
    add((n) => `u.external_id = ${n}`, filter.userId);
  }
  if (filter.status !== undefined) add((n) => `p.status = ${n}`, filter.status);
  if (filter.sessionId !== undefined) add((n) => `p.session_id = ${n}`, filter.sessionId);
  if (filter.startingAfter !== undefined) {
    const [cursor] = await db.query<{ id: string }>(
      'SELECT id FROM payments WHERE id = $1 AND ($2::text IS NULL OR integrator_id = $2)',
      [filter.startingAfter, filter.integratorId ?? null],
    );
    if (!cursor) {
      throw new ServiceError(
        'invalid_request',
        `Invalid querystring: starting_after: No payment ${filter.startingAfter}. Pass the payment_id of the last payment of the page you have.`,
      );
    }
    add(
      (n) => `(p.created_at, p.id) < (SELECT created_at, id FROM payments WHERE id = ${n})`,
      filter.startingAfter,
    );
  }
  params.push(filter.limit + 1);
  const rows = await db.query<PaymentRow & { user_external_id: string }>(
    `SELECT p.*, u.external_id AS user_external_id FROM payments p JOIN users u ON u.id = p.user_id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY p.created_at DESC, p.id DESC LIMIT $${params.length}`,
    params,
  );
  return { rows: rows.slice(0, filter.limit), has_more: rows.length > filter.limit };
}
