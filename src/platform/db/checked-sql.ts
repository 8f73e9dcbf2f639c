import { type Static, type TSchema, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Queryable, QueryOptions, SqlParam } from './db.ts';

/**
 * Column types for the row schemas of hand-written SQL. A timestamptz or date column reads as a Date on both
 * databases, and a bigint as a number. A jsonb column gets the schema of what it holds (there is no "any JSON"
 * column: a cast of one would be a hand-asserted type again); to_jsonb of a row gives its timestamps as ISO text.
 */
export const Col = {
  text: Type.String(),
  int: Type.Integer(),
  number: Type.Number(),
  bool: Type.Boolean(),
  date: Type.Refine(
    Type.Unsafe<Date>(Type.Any()),
    (value) => value instanceof Date,
    () => 'Expected a Date',
  ),
  nullable<T extends TSchema>(type: T) {
    return Type.Union([type, Type.Null()]);
  },
  row<P extends Record<string, TSchema>>(properties: P) {
    return Type.Object(properties);
  },
};

/** The rows a query returned do not have the shape its statement declares: the SQL and its schema drifted apart. */
export class RowShapeError extends Error {
  override readonly name = 'RowShapeError';
}

export interface SqlStatement<Row> {
  readonly text: string;
  /** Runs the statement; every row is checked against the declared row schema. */
  rows(db: Queryable, params?: readonly SqlParam[]): Promise<Row[]>;
  /** The first row, or undefined when there is none. */
  first(db: Queryable, params?: readonly SqlParam[]): Promise<Row | undefined>;
}

/**
 * Hand-written SQL (bulk jsonb_to_recordset writes, claim CTEs, the payable-rent query) with its row type declared
 * as a schema and checked on every row, not asserted: a statement and its type cannot drift apart silently. The
 * schema is compiled once; a check costs well under a microsecond per row.
 */
export function sqlStatement<S extends TSchema>(
  row: S,
  text: string,
  options?: QueryOptions,
): SqlStatement<Static<S>> {
  const checker = Compile(row);
  const statement: SqlStatement<Static<S>> = {
    text,
    async rows(db, params) {
      const result = await db.query<unknown>(text, params, options);
      for (const value of result) {
        if (!checker.Check(value)) {
          const [error] = checker.Errors(value);
          const where = options?.prepare ?? text.trim().split('\n')[0]!.slice(0, 80);
          throw new RowShapeError(
            `A row of "${where}" does not match its schema: ${error?.instancePath || '/'} ${error?.message ?? ''}`,
          );
        }
      }
      return result as Static<S>[];
    },
    async first(db, params) {
      return (await statement.rows(db, params))[0];
    },
  };
  return statement;
}
