import {
  type Compilable,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  sql,
} from 'kysely';
import type { Queryable, QueryOptions, SqlParam } from './db.ts';
import type { Tables } from './tables.ts';

/**
 * A typed query builder over the generated table types. It only compiles: the SQL and parameters it builds run
 * through the `Db` or transaction at hand (`rows`, `firstRow`), so both databases, prepared statements and
 * NOTIFY-after-commit work as for hand-written SQL. Hand-written SQL stays for what the builder would obscure
 * (bulk jsonb_to_recordset writes, the job claim, the payable-rent query).
 */
export const qb = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Runs a built query; its rows are typed by the query (the columns it selects or returns). */
export async function rows<Row>(
  db: Queryable,
  query: Compilable<Row>,
  options?: QueryOptions,
): Promise<Row[]> {
  const compiled = query.compile();
  return db.query<Row>(compiled.sql, compiled.parameters as readonly SqlParam[], options);
}

/** The first row of a built query, or undefined when it has none. */
export async function firstRow<Row>(
  db: Queryable,
  query: Compilable<Row>,
  options?: QueryOptions,
): Promise<Row | undefined> {
  return (await rows(db, query, options))[0];
}

/**
 * A day ('YYYY-MM-DD', as rentpay passes days) where a date column is compared or written: the generated types give
 * date columns the type the drivers read them as (Date).
 */
export function asDate(day: string): RawBuilder<Date> {
  return sql<Date>`${day}::date`;
}
