import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { type Db, openDatabase } from '../../src/platform/db/db.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/db/migrate.ts';
import { createTestDatabase, pgliteDataDir } from '../support/helpers.ts';

const ALL = fs
  .readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

interface DeclaredSchema {
  /** Table name to its columns, sorted. */
  tables: Record<string, string[]>;
  /** Index name to its table and whether it is unique. */
  indexes: Record<string, { table: string; unique: boolean }>;
}

/** Splits at commas outside parentheses and quotes: the items of a CREATE TABLE body or an ALTER TABLE. */
function topLevelItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      items.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(text.slice(start).trim());
  return items.filter(Boolean);
}

const NOT_A_COLUMN = /^(CONSTRAINT|CHECK|PRIMARY|UNIQUE|FOREIGN|EXCLUDE)\b/i;

/**
 * The tables, columns and named indexes the migration files declare, read from their SQL (CREATE TABLE, ALTER TABLE
 * ADD/DROP/RENAME COLUMN, CREATE/DROP INDEX, DROP TABLE): what the database must hold once they have all run.
 */
function declaredSchema(dir: string, files: string[]): DeclaredSchema {
  const tables = new Map<string, Set<string>>();
  const indexes = new Map<string, { table: string; unique: boolean }>();
  for (const file of files) {
    const sql = fs.readFileSync(path.join(dir, file), 'utf8').replace(/--.*$/gm, '');
    for (const raw of sql.split(/;\s*$/m)) {
      const statement = raw.replace(/\s+/g, ' ').trim();
      if (!statement) continue;
      let m = /^CREATE TABLE (?:IF NOT EXISTS )?(\w+) \((.*)\)$/i.exec(statement);
      if (m) {
        const columns = topLevelItems(m[2]!)
          .filter((item) => !NOT_A_COLUMN.test(item))
          .map((item) => item.split(' ')[0]!);
        tables.set(m[1]!, new Set(columns));
        continue;
      }
      m = /^CREATE (UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?(\w+) ON (?:ONLY )?(\w+)/i.exec(
        statement,
      );
      if (m) {
        indexes.set(m[2]!, { table: m[3]!, unique: m[1] !== undefined });
        continue;
      }
      m = /^DROP INDEX (?:IF EXISTS )?(\w+)/i.exec(statement);
      if (m) {
        indexes.delete(m[1]!);
        continue;
      }
      m = /^DROP TABLE (?:IF EXISTS )?(\w+)/i.exec(statement);
      if (m) {
        tables.delete(m[1]!);
        for (const [name, index] of indexes) if (index.table === m[1]) indexes.delete(name);
        continue;
      }
      m = /^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?(\w+) (.*)$/i.exec(statement);
      if (m) {
        const columns = tables.get(m[1]!);
        assert.ok(columns, `${file} alters ${m[1]}, which no earlier migration creates`);
        for (const action of topLevelItems(m[2]!)) {
          const added = /^ADD (?:COLUMN )?(?:IF NOT EXISTS )?(\w+)/i.exec(action);
          if (added && !NOT_A_COLUMN.test(action.slice(4))) columns.add(added[1]!);
          const dropped = /^DROP (?:COLUMN )?(?:IF EXISTS )?(\w+)/i.exec(action);
          if (dropped && !/^DROP (CONSTRAINT|DEFAULT|NOT NULL)\b/i.test(action)) columns.delete(dropped[1]!);
          const renamed = /^RENAME (?:COLUMN )?(\w+) TO (\w+)/i.exec(action);
          if (renamed) {
            columns.delete(renamed[1]!);
            columns.add(renamed[2]!);
          }
        }
      }
    }
  }
  return {
    tables: Object.fromEntries(
      [...tables]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([table, columns]) => [table, [...columns].sort()]),
    ),
    indexes: Object.fromEntries(indexes),
  };
}

interface ActualSchema {
  tables: Record<string, string[]>;
  /** Index name to its table and definition, as pg_indexes gives them (implicit key indexes included). */
  indexes: Record<string, { table: string; definition: string }>;
}

/** The tables, columns and indexes of the test's schema, as the database reports them. */
async function actualSchema(db: Db): Promise<ActualSchema> {
  const columns = await db.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name, c.column_name`,
  );
  const tables: Record<string, string[]> = {};
  for (const { table_name, column_name } of columns) {
    tables[table_name] = [...(tables[table_name] ?? []), column_name];
  }
  const indexRows = await db.query<{ indexname: string; tablename: string; indexdef: string }>(
    `SELECT indexname, tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname`,
  );
  const indexes: ActualSchema['indexes'] = {};
  for (const row of indexRows) indexes[row.indexname] = { table: row.tablename, definition: row.indexdef };
  return { tables, indexes };
}

async function recordedMigrations(db: Db): Promise<{ name: string; applied_at: string }[]> {
  return db.query<{ name: string; applied_at: string }>(
    'SELECT name, applied_at::text AS applied_at FROM schema_migrations ORDER BY name',
  );
}

/** Opens the embedded database in dataDir and checks that it holds the directory's lock for this process. */
async function openHoldingLock(dataDir: string): Promise<Db> {
  const db = await openDatabase({ databaseUrl: undefined, dataDir });
  const lockFile = path.join(dataDir, 'pglite', 'rentpay.pid');
  assert.equal(fs.readFileSync(lockFile, 'utf8'), String(process.pid), 'the lock now names this process');
  assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }], 'the database answers');
  await assert.rejects(
    openDatabase({ databaseUrl: undefined, dataDir }),
    /is in use by another rentpay process/,
    'a second opener is refused while this one holds it',
  );
  return db;
}

async function closeReleasingLock(db: Db, dataDir: string): Promise<void> {
  await db.close();
  assert.equal(
    fs.existsSync(path.join(dataDir, 'pglite', 'rentpay.pid')),
    false,
    'closing releases the lock',
  );
}

describe('migrations', () => {
  it('apply once, then a second run finds nothing to do', async () => {
    const database = await createTestDatabase({ migrated: false });
    const db = await database.open();
    try {
      const first = await migrate(db);
      assert.deepEqual(first.applied, ALL);
      const recorded = await recordedMigrations(db);
      const schema = await actualSchema(db);
      const second = await migrate(db);
      assert.deepEqual(second.applied, []);
      assert.deepEqual(second.alreadyApplied, ALL);
      const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.deepEqual(
        rows.map((r) => r.name),
        ALL,
      );
      assert.deepEqual(await recordedMigrations(db), recorded, 'the second run recorded nothing anew');
      assert.deepEqual(await actualSchema(db), schema, 'the second run changed no table, column or index');
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('leaves exactly the tables and columns the migration files create, and every index they declare', async () => {
    const database = await createTestDatabase({ migrated: false });
    const db = await database.open();
    try {
      await migrate(db);
      const declared = declaredSchema(MIGRATIONS_DIR, ALL);
      const actual = await actualSchema(db);
      assert.deepEqual(actual.tables, {
        ...declared.tables,
        schema_migrations: ['applied_at', 'name'],
      });
      for (const [name, { table, unique }] of Object.entries(declared.indexes)) {
        const index = actual.indexes[name];
        assert.ok(index, `index ${name} on ${table} exists`);
        assert.equal(index.table, table, `${name} is on ${table}`);
        assert.equal(/^CREATE UNIQUE INDEX/.test(index.definition), unique, index.definition);
      }
      // What the job queue's SQL relies on, spelled out: ON CONFLICT (dedupe_key) needs a unique index, and the
      // claim's scans use the partial indexes of due jobs (without and with a fair key), running keyed ones and
      // leased ones.
      const definitionsOn = (table: string) =>
        Object.values(actual.indexes)
          .filter((index) => index.table === table)
          .map((index) => index.definition.replace(/ ON \S+\./, ' ON '));
      const jobs = definitionsOn('jobs');
      assert.ok(
        jobs.some((d) => /^CREATE UNIQUE INDEX \S+ ON jobs USING btree \(dedupe_key\)$/.test(d)),
        jobs.join('\n'),
      );
      for (const definition of [
        "CREATE INDEX jobs_due_idx ON jobs USING btree (run_at) WHERE ((status = 'pending'::text) AND (fair_key IS NULL))",
        "CREATE INDEX jobs_due_keyed_idx ON jobs USING btree (fair_key, run_at) WHERE ((status = 'pending'::text) AND (fair_key IS NOT NULL))",
        "CREATE INDEX jobs_running_keyed_idx ON jobs USING btree (locked_by, fair_key) WHERE ((status = 'running'::text) AND (fair_key IS NOT NULL))",
      ]) {
        assert.ok(jobs.includes(definition), jobs.join('\n'));
      }
      assert.ok(
        jobs.includes(
          "CREATE INDEX jobs_lease_idx ON jobs USING btree (locked_until) WHERE (status = 'running'::text)",
        ),
        jobs.join('\n'),
      );
      assert.ok(
        definitionsOn('schema_migrations').some((d) =>
          /^CREATE UNIQUE INDEX \S+ ON schema_migrations USING btree \(name\)$/.test(d),
        ),
        'schema_migrations is keyed by name',
      );
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('run concurrently, each migration is applied exactly once', async () => {
    const database = await createTestDatabase({ migrated: false });
    // On PostgreSQL: separate pools, as separate processes would have. PGlite is one process by nature.
    const handles = database.databaseUrl
      ? await Promise.all([1, 2, 3, 4].map(() => database.open()))
      : [await database.open()];
    try {
      const runs = await Promise.all([0, 1, 2, 3].map((i) => migrate(handles[i % handles.length]!)));
      const appliedByAll = runs.flatMap((r) => r.applied).sort();
      assert.deepEqual(appliedByAll, ALL, 'every migration applied by exactly one runner');
      for (const run of runs) assert.deepEqual([...run.applied, ...run.alreadyApplied].sort(), ALL);
      assert.deepEqual(
        (await recordedMigrations(handles[0]!)).map((row) => row.name),
        ALL,
        'each recorded once',
      );
    } finally {
      for (const handle of handles) await handle.close();
      await database.drop();
    }
  });

  it('a failing migration leaves nothing half-applied and names the file', async () => {
    const database = await createTestDatabase({ migrated: false });
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
    // A new cluster on disk, nothing migrated (copied: creating one on disk costs seconds of syncs).
    await pgliteDataDir(dataDir, { migrated: false, evenOnPostgres: true });
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
    await pgliteDataDir(dataDir, { migrated: false, evenOnPostgres: true });
    try {
      const first = await openDatabase({ databaseUrl: undefined, dataDir });
      await assert.rejects(
        openDatabase({ databaseUrl: undefined, dataDir }),
        /DATA_DIR .* is in use by another rentpay process \(pid \d+\)\. The embedded database serves one process; to run several, use PostgreSQL \(DATABASE_URL\)/,
      );
      await closeReleasingLock(first, dataDir);
      const second = await openHoldingLock(dataDir);
      await closeReleasingLock(second, dataDir);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('takes over a lock left by a process that no longer runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-lock-'));
    try {
      await pgliteDataDir(dataDir, { migrated: false, evenOnPostgres: true });
      // pid 2^22 + 1 is above Linux's pid_max ceiling, so no process can hold it.
      fs.writeFileSync(path.join(dataDir, 'pglite', 'rentpay.pid'), String(4_194_305));
      const db = await openHoldingLock(dataDir);
      await closeReleasingLock(db, dataDir);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded database directory after a restart with the same pid', () => {
  it('takes over a lock that carries this process’s pid when this process does not hold it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-lock-'));
    try {
      await pgliteDataDir(dataDir, { migrated: false, evenOnPostgres: true });
      fs.writeFileSync(path.join(dataDir, 'pglite', 'rentpay.pid'), String(process.pid));
      const db = await openHoldingLock(dataDir);
      await closeReleasingLock(db, dataDir);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
  it('010 erases replaced webhook secrets past their overlap and schedules the erasure of the others', async () => {
    const database = await createTestDatabase({ migrated: false });
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
