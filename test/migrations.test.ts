import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../src/platform/db/db.ts';
import { MIGRATIONS_DIR, migrate } from '../src/platform/db/migrate.ts';
import { createTestDatabase } from './helpers.ts';

const ALL = fs
  .readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

describe('migrations', () => {
  it('apply once, then a second run finds nothing to do', async () => {
    const database = await createTestDatabase();
    const db = await database.open();
    try {
      const first = await migrate(db);
      assert.deepEqual(first.applied, ALL);
      const second = await migrate(db);
      assert.deepEqual(second.applied, []);
      assert.deepEqual(second.alreadyApplied, ALL);
      const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.deepEqual(
        rows.map((r) => r.name),
        ALL,
      );
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('run concurrently, each migration is applied exactly once', async () => {
    const database = await createTestDatabase();
    // On PostgreSQL: separate pools, as separate processes would have. PGlite is one process by nature.
    const handles = database.databaseUrl
      ? await Promise.all([1, 2, 3, 4].map(() => database.open()))
      : [await database.open()];
    try {
      const runs = await Promise.all([0, 1, 2, 3].map((i) => migrate(handles[i % handles.length]!)));
      const appliedByAll = runs.flatMap((r) => r.applied).sort();
      assert.deepEqual(appliedByAll, ALL, 'every migration applied by exactly one runner');
      for (const run of runs) assert.deepEqual([...run.applied, ...run.alreadyApplied].sort(), ALL);
    } finally {
      for (const handle of handles) await handle.close();
      await database.drop();
    }
  });

  it('a failing migration leaves nothing half-applied and names the file', async () => {
    const database = await createTestDatabase();
    const db = await database.open();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-migrations-'));
    fs.writeFileSync(path.join(dir, '001_ok.sql'), 'CREATE TABLE ok_table (id int);\n');
    fs.writeFileSync(
      path.join(dir, '002_broken.sql'),
      'CREATE TABLE half_table (id int);\nINSERT INTO no_such_table VALUES (1);\n',
    );
    try {
      await assert.rejects(migrate(db, dir), /Migration 002_broken\.sql failed/);
      const tables = await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('ok_table', 'half_table')`,
      );
      assert.deepEqual(
        tables.map((t) => t.table_name),
        ['ok_table'],
      );
      const names = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
      assert.deepEqual(
        names.map((n) => n.name),
        ['001_ok.sql'],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await db.close();
      await database.drop();
    }
  });

  it('PGlite on disk: a restart keeps the data and applies nothing again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-pglite-'));
    try {
      const first = await openDatabase({ databaseUrl: undefined, dataDir });
      assert.deepEqual((await migrate(first)).applied, ALL);
      await first.query(
        `INSERT INTO deployment_state (key, value, updated_at) VALUES ('probe', '{"kept": true}', now())`,
      );
      await first.close();
      const second = await openDatabase({ databaseUrl: undefined, dataDir });
      assert.deepEqual((await migrate(second)).applied, []);
      const [row] = await second.query<{ value: { kept: boolean } }>(
        `SELECT value FROM deployment_state WHERE key = 'probe'`,
      );
      assert.deepEqual(row?.value, { kept: true });
      await second.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded database directory', () => {
  it('refuses a second opener while the first has it, and is free again once closed', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-lock-'));
    try {
      const first = await openDatabase({ databaseUrl: undefined, dataDir });
      await assert.rejects(
        openDatabase({ databaseUrl: undefined, dataDir }),
        /DATA_DIR .* is in use by another rentpay process \(pid \d+\)\. The embedded database serves one process; to run several, use PostgreSQL \(DATABASE_URL\)/,
      );
      await first.close();
      const second = await openDatabase({ databaseUrl: undefined, dataDir });
      await second.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('takes over a lock left by a process that no longer runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-lock-'));
    try {
      fs.mkdirSync(path.join(dataDir, 'pglite'), { recursive: true });
      // pid 2^22 + 1 is above Linux's pid_max ceiling, so no process can hold it.
      fs.writeFileSync(path.join(dataDir, 'pglite', 'rentpay.pid'), String(4_194_305));
      const db = await openDatabase({ databaseUrl: undefined, dataDir });
      await db.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded database directory after a restart with the same pid', () => {
  it('takes over a lock that carries this process’s pid when this process does not hold it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-lock-'));
    try {
      fs.mkdirSync(path.join(dataDir, 'pglite'), { recursive: true });
      fs.writeFileSync(path.join(dataDir, 'pglite', 'rentpay.pid'), String(process.pid));
      const db = await openDatabase({ databaseUrl: undefined, dataDir });
      await db.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
  it('010 erases replaced webhook secrets past their overlap and schedules the erasure of the others', async () => {
    const database = await createTestDatabase();
    const db = await database.open();
    const before = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-migrations-'));
    try {
      for (const file of ALL.filter((f) => f < '010')) {
        fs.copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(before, file));
      }
      await migrate(db, before);
      for (const id of ['int_old', 'int_live']) {
        await db.query(
          `INSERT INTO integrators (id, name, environment, webhook_secret, created_at, updated_at)
           VALUES ($1, $1, 'sandbox', 'whsec_current', now(), now())`,
          [id],
        );
      }
      await db.query(
        `INSERT INTO webhook_endpoints (integrator_id, previous_secret, previous_secret_expires_at, updated_at)
         VALUES ('int_old', 'whsec_old', now() - interval '1 hour', now()),
                ('int_live', 'whsec_live', now() + interval '1 hour', now())`,
      );
      assert.deepEqual(
        (await migrate(db)).applied,
        ALL.filter((f) => f >= '010'),
      );
      const rows = await db.query<{ integrator_id: string; previous_secret: string | null }>(
        'SELECT integrator_id, previous_secret FROM webhook_endpoints ORDER BY integrator_id',
      );
      assert.deepEqual(rows, [
        { integrator_id: 'int_live', previous_secret: 'whsec_live' },
        { integrator_id: 'int_old', previous_secret: null },
      ]);
      const jobs = await db.query<{ kind: string; payload: unknown }>(
        "SELECT kind, payload FROM jobs WHERE kind = 'webhook.secret-erase'",
      );
      assert.deepEqual(jobs, [{ kind: 'webhook.secret-erase', payload: { integrator_id: 'int_live' } }]);
    } finally {
      fs.rmSync(before, { recursive: true, force: true });
      await db.close();
      await database.drop();
    }
  });
});
