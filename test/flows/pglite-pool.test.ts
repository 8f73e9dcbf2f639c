/**
 * The PGlite pool of a test process (PGlite runs on a PostgreSQL run too, so this checks it there as well): a
 * database given back is reused emptied, and one whose schema a test changed is closed rather than handed on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/platform/db/db.ts';
import { migratedPglite } from '../support/helpers.ts';
import { leasePglite } from '../support/pglite-pool.ts';

const lease = () => leasePglite(migratedPglite);

async function schemaOf(db: Db) {
  return {
    columns: await db.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'integrators'`,
    ),
    probes: await db.query(`SELECT proname FROM pg_proc WHERE proname = 'pool_probe'`),
    failures: await db.query(`SELECT to_regclass('dashboard_sign_in_failures')::text AS t`),
  };
}

describe('the PGlite pool of a test process', () => {
  it('hands the next test an empty database, the rows of every table written gone', async () => {
    const first = await lease();
    await first.query(
      `INSERT INTO dashboard_sign_in_failures (email_key, address, created_at) VALUES ('a', '127.0.0.1', now())`,
    );
    await first.close();
    await assert.rejects(first.query('SELECT 1'), /closed/);
    const next = await lease();
    assert.deepEqual(await next.query('SELECT id FROM dashboard_sign_in_failures'), []);
    await next.close();
  });

  for (const [change, sql] of [
    ['a column added', `ALTER TABLE integrators ADD COLUMN pool_probe text`],
    ['a function created', `CREATE FUNCTION pool_probe() RETURNS int LANGUAGE sql AS 'SELECT 1'`],
    ['a table dropped', `DROP TABLE dashboard_sign_in_failures`],
  ] as const) {
    it(`never hands on a database with ${change}`, async () => {
      const pristine = await lease();
      const before = await schemaOf(pristine);
      assert.equal(before.failures[0]!.t, 'dashboard_sign_in_failures');
      await pristine.query(sql);
      await pristine.close();
      const next = await lease();
      assert.deepEqual(await schemaOf(next), before);
      await next.close();
    });
  }
});
