import { type SelectQueryBuilder, sql } from 'kysely';
import type { Queryable } from './db.ts';
import { firstRow, qb, rows } from './query-builder.ts';
import type { Tables } from './tables.ts';

/** The tables a list pages through newest first: each has an id and a created_at. */
type PagedTable = {
  [T in keyof Tables]: Tables[T] extends { id: unknown; created_at: unknown } ? T : never;
}[keyof Tables];

export interface Page<Row> {
  rows: Row[];
  has_more: boolean;
}

/**
 * One page of a list, newest first by (created_at, id) of the table under `alias`, starting right after the row
 * `startingAfter` when given. The cursor row's values are compared in SQL, so the timestamp keeps its full precision
 * and a row inserted meanwhile never shifts a later page.
 */
export async function newestFirstPage<DB, TB extends keyof DB, Row>(
  db: Queryable,
  query: SelectQueryBuilder<DB, TB, Row>,
  page: { table: PagedTable; alias: string; limit: number; startingAfter?: string | undefined },
): Promise<Page<Row>> {
  const createdAt = sql.ref(`${page.alias}.created_at`);
  const id = sql.ref(`${page.alias}.id`);
  const after =
    page.startingAfter === undefined
      ? query
      : query.where(
          sql<boolean>`(${createdAt}, ${id}) < (SELECT created_at, id FROM ${sql.table(page.table)} WHERE id = ${page.startingAfter})`,
        );
  const found = await rows(
    db,
    after
      .orderBy(createdAt, 'desc')
      .orderBy(id, 'desc')
      .limit(page.limit + 1),
  );
  return { rows: found.slice(0, page.limit), has_more: found.length > page.limit };
}

/** Whether a list's cursor names a row of the table (and of the integrator, when one is given). */
export async function cursorExists(
  db: Queryable,
  table: 'payments' | 'events',
  id: string,
  integratorId: string | undefined,
): Promise<boolean> {
  let query = qb.selectFrom(table).select('id').where('id', '=', id);
  if (integratorId !== undefined) query = query.where('integrator_id', '=', integratorId);
  return (await firstRow(db, query)) !== undefined;
}
