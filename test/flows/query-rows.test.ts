/**
 * Rows as both drivers give them (node-postgres on PostgreSQL, PGlite embedded): one object per row, keyed by column
 * name, with a later column of the same name winning, and a column named like an object's internals made a plain
 * column.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Db, openDatabase } from '../../src/platform/db/db.ts';

describe('query rows', () => {
  let db: Db;

  before(async () => {
    db = await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: 'memory://' });
  });
  after(async () => {
    await db?.close();
  });

  it('are objects of their columns, of the types the columns read as, in a transaction too', async () => {
    const sql = `SELECT n, 'x' || n AS "a ""quoted"" name", n::int8 AS big, '2027-03-01T09:30:00Z'::timestamptz AS at,
                        jsonb_build_object('n', n) AS doc, NULL::text AS nothing
                   FROM generate_series(1, 3) AS n`;
    const expected = [1, 2, 3].map((n) => ({
      n,
      'a "quoted" name': `x${n}`,
      big: n,
      at: new Date('2027-03-01T09:30:00Z'),
      doc: { n },
      nothing: null,
    }));
    assert.deepEqual(await db.query(sql), expected);
    assert.deepEqual(await db.query(sql, [], { prepare: 'query-rows-test' }), expected);
    assert.deepEqual(await db.transaction((tx) => tx.query(sql)), expected);
    assert.deepEqual(await db.query('SELECT 1 AS n WHERE false'), []);
  });

  it('keep the last of two columns of one name, and a column named __proto__ as a column', async () => {
    const [row] = await db.query<Record<string, unknown>>('SELECT 1 AS a, 2 AS "__proto__", 3 AS a');
    assert.equal(row!.a, 3);
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 2);
  });
});
