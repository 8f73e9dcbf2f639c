import { type Db, openDatabase } from '../../src/platform/db/db.ts';

/**
 * Migrated in-memory PGlite databases, reused within one test process: a test database is leased, and given back
 * emptied when its app closes it. Loading a migrated data directory into a new PGlite costs most of a second of CPU;
 * emptying the tables of one already loaded costs a few milliseconds.
 *
 * A lease is a view of the database that stops working once given back, so a late query from a closed app fails
 * instead of writing into the next test's data. A database whose schema a test changed is closed, not reused.
 * One left idle for a second is closed: PGlite keeps a timer of its own that would hold the process open.
 */
const IDLE_CLOSE_MS = 1_000;
const idle: { db: Db; timer: NodeJS.Timeout }[] = [];
let pristineSchema: string | undefined;
/** The tables of the pristine schema (the same in every database a process leases). */
let tableNames: string[] | undefined;

/** Everything a test could change that emptying the tables would not undo: tables, columns, indexes, functions. */
const SCHEMA_FINGERPRINT = `
  SELECT md5(string_agg(item, ',' ORDER BY item)) AS fingerprint FROM (
    SELECT c.relname || ':' || c.relkind::text || ':' || coalesce(string_agg(a.attname || ' ' || a.atttypid::text
             || CASE WHEN a.attnotnull THEN '!' ELSE '' END, ';' ORDER BY a.attnum), '') AS item
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = 'public' GROUP BY c.relname, c.relkind
    UNION ALL SELECT conname || ':' || pg_get_constraintdef(oid) FROM pg_constraint
     WHERE connamespace = 'public'::regnamespace
    UNION ALL SELECT proname || ':' || md5(prosrc) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
    UNION ALL SELECT tgname FROM pg_trigger WHERE NOT tgisinternal
  ) items`;

async function fingerprint(db: Db): Promise<string> {
  const [row] = await db.query<{ fingerprint: string }>(SCHEMA_FINGERPRINT);
  return row!.fingerprint;
}

/**
 * The newest transaction that wrote to the catalog: it moves with any change of schema (and with TRUNCATE, hence taken
 * after emptying). While it stands still the costly fingerprint need not be taken again.
 */
const CATALOG_STAMP = `
  SELECT max(x)::text AS stamp FROM (
    SELECT max(xmin::text::bigint) AS x FROM pg_class UNION ALL SELECT max(xmin::text::bigint) FROM pg_attribute
    UNION ALL SELECT max(xmin::text::bigint) FROM pg_proc UNION ALL SELECT max(xmin::text::bigint) FROM pg_constraint
    UNION ALL SELECT max(xmin::text::bigint) FROM pg_trigger UNION ALL SELECT max(xmin::text::bigint) FROM pg_type
  ) stamps`;
const stamps = new WeakMap<Db, string>();

async function catalogStamp(db: Db): Promise<string> {
  const [row] = await db.query<{ stamp: string }>(CATALOG_STAMP);
  return row!.stamp;
}

async function schemaIsPristine(db: Db): Promise<boolean> {
  if (stamps.get(db) === (await catalogStamp(db))) return true;
  return (await fingerprint(db)) === pristineSchema;
}

/** Empties the tables a test wrote to: truncating all of them (new files for each) cost most of a give-back. */
async function emptyTables(db: Db): Promise<void> {
  tableNames ??= (
    await db.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables
        WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename`,
    )
  ).map((t) => t.name);
  if (!tableNames.length) return;
  const written = await db.query<{ name: string }>(
    tableNames
      .map((name) => `SELECT '${name}' AS name WHERE EXISTS (SELECT 1 FROM ${name})`)
      .join(' UNION ALL '),
  );
  if (written.length)
    await db.query(`TRUNCATE ${written.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`);
}

/** A migrated database of the test's own: an idle one emptied, or a new one loaded from `template`. */
export async function leasePglite(template: () => Promise<Blob>): Promise<Db> {
  const reused = idle.pop();
  clearTimeout(reused?.timer);
  const db =
    reused?.db ??
    (await openDatabase({ databaseUrl: undefined, dataDir: 'memory://', pgliteTemplate: await template() }));
  if (!stamps.has(db)) {
    const schema = await fingerprint(db);
    pristineSchema ??= schema;
    if (schema === pristineSchema) stamps.set(db, await catalogStamp(db));
  }
  return lease(db);
}

function lease(db: Db): Db {
  let returned = false;
  const listeners = new Set<() => Promise<void>>();
  const live = () => {
    if (returned) throw new Error('This test database was closed: its app or test has finished with it');
    return db;
  };
  const view: Db = {
    kind: db.kind,
    query: async (sql, params, options) => live().query(sql, params, options),
    transaction: async (fn) => live().transaction(fn),
    withExclusiveLock: async (key, fn) => live().withExclusiveLock(key, fn),
    notifyOnCommit: async (channel, payload) => live().notifyOnCommit(channel, payload),
    async listen(channel, onNotify) {
      const stop = await live().listen(channel, () => {
        if (!returned) onNotify();
      });
      const once = async () => {
        if (listeners.delete(once)) await stop();
      };
      listeners.add(once);
      return once;
    },
    async close() {
      if (returned) return;
      returned = true;
      for (const stop of [...listeners]) await stop();
      await giveBack(db);
    },
  };
  return view;
}

async function giveBack(db: Db): Promise<void> {
  try {
    if (!(await schemaIsPristine(db))) throw new Error('schema changed');
    await emptyTables(db);
    stamps.set(db, await catalogStamp(db));
    const entry = {
      db,
      timer: setTimeout(() => {
        idle.splice(idle.indexOf(entry), 1);
        db.close().catch(() => undefined);
      }, IDLE_CLOSE_MS).unref(),
    };
    idle.push(entry);
  } catch {
    await db.close().catch(() => undefined);
  }
}
