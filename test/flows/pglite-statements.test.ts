/**
 * The embedded database's prepared statements (src/platform/db/pglite-statements.ts): every DML text is prepared once
 * and run as one message, with the values and rows PGlite's own query() would give; the least used are closed past
 * the limit; a change of columns makes them prepared afresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { type Db, openDatabase, type Queryable } from '../../src/platform/db/db.ts';
import { PgliteStatements } from '../../src/platform/db/pglite-statements.ts';

describe('PGlite prepared statements', () => {
  let db: Db;

  before(async () => {
    db = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://' });
    await db.query(
      'CREATE TABLE things (id text PRIMARY KEY, at timestamptz, n bigint, doc jsonb, raw bytea)',
    );
  });
  after(async () => {
    await db?.close();
  });

  const prepared = async (on: Queryable = db) =>
    (await on.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements'))[0]!.n;

  it('gives the values and rows query() gives, and prepares a text once however often it runs', async () => {
    const at = new Date('2027-03-01T09:30:00.000Z');
    const insert = 'INSERT INTO things (id, at, n, doc, raw) VALUES ($1, $2, $3, $4, $5) RETURNING id';
    await db.query(insert, ['a', at, 42, { x: [1, 'two'] }, new Uint8Array([0, 255])]);
    await db.query(insert, ['b', null, null, null, null]);
    const before = await prepared();
    const rows = await db.query<{
      id: string;
      at: Date | null;
      n: number | null;
      doc: unknown;
      raw: Uint8Array | null;
    }>('SELECT id, at, n, doc, raw FROM things WHERE id = ANY ($1::text[]) ORDER BY id', ['{a,b}']);
    assert.deepEqual(rows, [
      { id: 'a', at, n: 42, doc: { x: [1, 'two'] }, raw: new Uint8Array([0, 255]) },
      { id: 'b', at: null, n: null, doc: null, raw: null },
    ]);
    for (let i = 0; i < 5; i++) await db.query('SELECT id FROM things WHERE id = $1', ['a']);
    assert.equal(await prepared(), before + 2, 'the SELECT with the array and the one run five times');
  });

  it('a change of a table’s columns outside the statements is met by preparing afresh', async () => {
    await db.query('SELECT * FROM things ORDER BY id');
    // Straight to PGlite, as if another path had changed the table: the prepared statement's rows no longer fit.
    await (db as unknown as { pglite: PGlite }).pglite.exec('ALTER TABLE things ADD COLUMN note text');
    const [row] = await db.query<Record<string, unknown>>('SELECT * FROM things ORDER BY id');
    assert.ok('note' in row!, JSON.stringify(row));
    // Through the database, DDL has every statement prepared afresh before the next: even inside a transaction, where
    // a stale one's error could not be retried.
    await db.query('ALTER TABLE things DROP COLUMN note');
    const [again] = await db.transaction((tx) =>
      tx.query<Record<string, unknown>>('SELECT * FROM things ORDER BY id'),
    );
    assert.ok(!('note' in again!), JSON.stringify(again));
  });

  it('inside a transaction: its statements are rolled back with it, and its handle refuses once it ended', async () => {
    let handle: Queryable | undefined;
    await assert.rejects(
      db.transaction(async (tx) => {
        handle = tx;
        await tx.query('INSERT INTO things (id) VALUES ($1)', ['c']);
        await tx.query('INSERT INTO things (id) VALUES ($1)', ['c']);
      }),
      /duplicate key/,
    );
    assert.deepEqual(await db.query('SELECT id FROM things WHERE id = $1', ['c']), []);
    await assert.rejects(handle!.query('SELECT 1 AS one'), /Transaction is closed/);
  });

  it('past its limit the least recently used statement is closed, and a closed one is prepared again', async () => {
    const pglite = await PGlite.create();
    try {
      const statements = new PgliteStatements(pglite, 2);
      const run = (sql: string) =>
        statements.transactionLock(() => statements.run<{ v: number }>(sql, [], false));
      const count = async () =>
        (await pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]!
          .n;
      assert.deepEqual(await run('SELECT 1 AS v'), [{ v: 1 }]);
      assert.deepEqual(await run('SELECT 2 AS v'), [{ v: 2 }]);
      assert.deepEqual(await run('SELECT 1 AS v'), [{ v: 1 }], 'used again: now the most recent');
      assert.deepEqual(await run('SELECT 3 AS v'), [{ v: 3 }], '"SELECT 2" is evicted');
      assert.deepEqual(await run('SELECT 4 AS v'), [{ v: 4 }], '"SELECT 1" is evicted, "SELECT 2" closed');
      assert.equal(await count(), 3, 'two kept and one evicted, closed with the next one prepared');
      assert.deepEqual(await run('SELECT 2 AS v'), [{ v: 2 }], 'prepared again');
      assert.equal(await count(), 3, '"SELECT 1" closed now; "SELECT 3" evicted, to be closed with the next');
    } finally {
      await pglite.close();
    }
  });
});
