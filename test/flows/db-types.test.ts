import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { TABLES_FILE, tableTypesSource } from '../../scripts/db-types.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { firstRow, qb, rows } from '../../src/platform/db/query-builder.ts';
import { createTestDatabase, startTestApp } from '../support/helpers.ts';

describe('the generated table types', () => {
  it('src/platform/db/tables.ts matches the schema the migrations build (npm run db:types rewrites it)', async () => {
    const database = await createTestDatabase({ migrated: false });
    const db = await database.open();
    try {
      await migrate(db);
      assert.equal(
        fs.readFileSync(TABLES_FILE, 'utf8'),
        await tableTypesSource(db),
        'src/platform/db/tables.ts is out of date: run `npm run db:types` and commit the result',
      );
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('a built query runs on the database at hand and in its transactions, with the types both drivers return', async () => {
    const t = await startTestApp();
    try {
      const { id } = await t.createIntegrator({ name: 'Built query' });
      const integrator = await firstRow(
        t.db,
        qb
          .selectFrom('integrators')
          .select(['id', 'name', 'created_at', 'rate_limit_burst'])
          .where('id', '=', id),
      );
      assert.equal(integrator?.name, 'Built query');
      assert.ok(integrator?.created_at instanceof Date);
      assert.equal(typeof integrator?.rate_limit_burst, 'number');
      const renamed = await t.db.transaction((tx) =>
        rows(
          tx,
          qb.updateTable('integrators').set({ name: 'Renamed' }).where('id', '=', id).returning(['name']),
        ),
      );
      assert.deepEqual(renamed, [{ name: 'Renamed' }]);
      assert.equal(
        await firstRow(t.db, qb.selectFrom('integrators').select('id').where('id', '=', 'int_none')),
        undefined,
      );
    } finally {
      await t.close();
    }
  });
});
