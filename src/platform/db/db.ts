import fs from 'node:fs';
import path from 'node:path';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { ConfigError } from '../config/config.ts';
import type { PgliteStatements } from './pglite-statements.ts';

export type SqlParam =
  | string
  | number
  | boolean
  | Date
  | null
  | undefined
  | Uint8Array
  | Record<string, unknown>
  | unknown[];

/** What a query can run on: the database itself or an open transaction. */
export interface QueryOptions {
  /**
   * Hot queries run as named prepared statements on PostgreSQL, planned once per connection instead of on every
   * call. The name must be unique to the SQL text. (PGlite prepares every statement text once, named or not.)
   */
  prepare?: string;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly SqlParam[],
    options?: QueryOptions,
  ): Promise<Row[]>;
  /**
   * NOTIFY channel once this work is committed: at once outside a transaction, after COMMIT inside one (equal
   * notifications once), never after a rollback. Not pg_notify inside the transaction: PostgreSQL serialises the
   * commits of notifying transactions on one database-wide lock, held across the commit's WAL flush.
   */
  notifyOnCommit(channel: string, payload: string): Promise<void>;
}

/** The notifications a transaction asked for, sent after it commits. */
class PendingNotifications {
  readonly #pending = new Map<string, { channel: string; payload: string }>();

  add(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    this.#pending.set(`${channel}\u0000${payload}`, { channel, payload });
    return Promise.resolve();
  }

  /** Sends them (best effort: a lost wake-up only waits for the workers' next poll). */
  async send(run: (sql: string, params: unknown[]) => Promise<unknown>): Promise<void> {
    for (const { channel, payload } of this.#pending.values()) {
      await run('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);
    }
  }
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs fn while holding a database-wide advisory lock (a session lock on PostgreSQL;
   * PGlite has a single connection, so running exclusively is enough there).
   */
  withExclusiveLock<T>(lockKey: number, fn: (db: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls onNotify on each NOTIFY on the channel (a plain lower-case name), from any process on PostgreSQL (PGlite
   * is one process). Resolves once listening, to a function that stops. On PostgreSQL a connection of its own
   * listens; after losing it, it reconnects every second and calls onNotify once back (one may have been missed).
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkChannel(channel: string): void {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Invalid NOTIFY channel name "${channel}"`);
}

const INT8_OID = 20;

/**
 * JSON values travel as text so both drivers encode them the same way
 * (node-postgres would turn a JS array into a PostgreSQL array literal). Bytes (bytea) travel as they are.
 */
function encodeParams(params: readonly SqlParam[] = []): unknown[] {
  return params.map((p) => {
    if (p === undefined) return null;
    if (p !== null && typeof p === 'object' && !(p instanceof Date) && !(p instanceof Uint8Array)) {
      return JSON.stringify(p);
    }
    return p;
  });
}

/** What node-postgres is asked to run: rows come back as arrays, made into objects by rowsOf. */
function pgQuery(sql: string, params: readonly SqlParam[] | undefined, options: QueryOptions | undefined) {
  const values = encodeParams(params);
  return options?.prepare
    ? { name: options.prepare, text: sql, values, rowMode: 'array' as const }
    : { text: sql, values, rowMode: 'array' as const };
}

/**
 * Makes each row of a result an object by a function written for its columns: an object literal with the column
 * names as keys. node-postgres's own objects are copies of a dictionary-mode template, several times slower to
 * make and to read. As there, a later column of the same name wins.
 */
const rowMakers = new Map<string, (values: unknown[]) => Record<string, unknown>>();

function rowsOf<Row>(result: pg.QueryResult<unknown[]>): Row[] {
  if (result.rows.length === 0) return [];
  const names = result.fields.map((field) => field.name);
  const key = names.join('\u0000');
  let make = rowMakers.get(key);
  if (!make && names.includes('__proto__')) {
    // A literal's "__proto__" key would set the prototype, not make a column.
    return result.rows.map((values) => {
      const row: Record<string, unknown> = {};
      names.forEach((name, n) => {
        Object.defineProperty(row, name, {
          value: values[n],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      });
      return row;
    }) as Row[];
  }
  if (!make) {
    // The names are data, written as JSON string literals: nothing in them can become code.
    const body = `return { ${names.map((name, n) => `${JSON.stringify(name)}: values[${n}]`).join(', ')} };`;
    make = new Function('values', body) as (values: unknown[]) => Record<string, unknown>;
    if (rowMakers.size < 10_000) rowMakers.set(key, make);
  }
  return result.rows.map(make) as Row[];
}

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  constructor(private readonly pool: pg.Pool) {}

  async query<Row>(sql: string, params?: readonly SqlParam[], options?: QueryOptions): Promise<Row[]> {
    return rowsOf<Row>(await this.pool.query(pgQuery(sql, params, options)));
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const notifications = new PendingNotifications();
      const tx: Queryable = {
        query: async <Row>(sql: string, params?: readonly SqlParam[], options?: QueryOptions) =>
          rowsOf<Row>(await client.query(pgQuery(sql, params, options))),
        notifyOnCommit: (channel, payload) => notifications.add(channel, payload),
      };
      const result = await fn(tx);
      await client.query('COMMIT');
      await notifications.send((sql, params) => client.query(sql, params));
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async withExclusiveLock<T>(lockKey: number, fn: (db: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [lockKey]);
      try {
        return await fn({
          query: async <Row>(sql: string, params?: readonly SqlParam[]) =>
            (await client.query(sql, encodeParams(params))).rows as Row[],
          notifyOnCommit: async (channel, payload) => {
            checkChannel(channel);
            await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
          },
        });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [lockKey]);
      }
    } finally {
      client.release();
    }
  }

  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    checkChannel(channel);
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    const connect = async () => {
      const next = new pg.Client(this.pool.options);
      next.on('error', () => undefined);
      next.on('notification', () => onNotify());
      try {
        await next.connect();
        await next.query(`LISTEN ${channel}`);
      } catch (error) {
        await next.end().catch(() => undefined);
        throw error;
      }
      next.on('end', () => {
        if (!stopped) retry = setTimeout(reconnect, 1_000);
      });
      client = next;
    };
    const reconnect = () => {
      connect().then(onNotify, () => {
        if (!stopped) retry = setTimeout(reconnect, 1_000);
      });
    };
    await connect();
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    };
  }

  async notifyOnCommit(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  #lockQueue: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly pglite: PGlite,
    private readonly statements: PgliteStatements,
    private readonly releaseDirectory: () => void = () => undefined,
  ) {}

  async query<Row>(sql: string, params?: readonly SqlParam[]): Promise<Row[]> {
    const values = encodeParams(params);
    if (!this.statements.takes(sql)) return (await this.pglite.query<Row>(sql, values)).rows;
    return this.statements.transactionLock(() => this.statements.run<Row>(sql, values, false));
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const notifications = new PendingNotifications();
    const result = await this.pglite.transaction(async (transaction: Transaction) =>
      fn({
        query: async <Row>(sql: string, params?: readonly SqlParam[]) => {
          const values = encodeParams(params);
          if (!this.statements.takes(sql)) return (await transaction.query<Row>(sql, values)).rows;
          if (transaction.closed) throw new Error('Transaction is closed');
          return this.statements.run<Row>(sql, values, true);
        },
        notifyOnCommit: (channel, payload) => notifications.add(channel, payload),
      }),
    );
    await notifications.send((sql, params) => this.pglite.query(sql, params));
    return result;
  }

  async notifyOnCommit(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    await this.pglite.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async withExclusiveLock<T>(_lockKey: number, fn: (db: Queryable) => Promise<T>): Promise<T> {
    const run = this.#lockQueue.then(() => fn(this));
    this.#lockQueue = run.catch(() => undefined);
    return run;
  }

  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    checkChannel(channel);
    const unsubscribe = await this.pglite.listen(channel, () => onNotify());
    return async () => {
      // Closing the database ends every subscription; unsubscribing a closed one would fail.
      if (!this.pglite.closed) await unsubscribe();
    };
  }

  dump(): Promise<Blob> {
    return this.pglite.dumpDataDir('none');
  }

  async close(): Promise<void> {
    await this.pglite.close();
    this.releaseDirectory();
  }
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Pool size per process for PostgreSQL. */
  poolSize?: number;
  /**
   * An in-memory PGlite starts from this data directory (a `dumpDataDir()` of a migrated database) instead of an
   * empty cluster: loading one is several times faster than creating and migrating a cluster.
   */
  pgliteTemplate?: Blob;
}

/** How every process opens the database its configuration names. */
export function databaseOptions(config: {
  databaseUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
}): DatabaseOptions {
  return { databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize };
}

export async function openDatabase(options: DatabaseOptions): Promise<Db> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 20,
      // A database that does not answer a connection at all fails the request (503) instead of holding it.
      connectionTimeoutMillis: 5_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
      },
    });
    // A dropped idle connection must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    const db = new PostgresDb(pool);
    await db.query('SELECT 1');
    return db;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { PgliteStatements } = await import('./pglite-statements.ts');
  let dataDir: string | undefined;
  if (options.dataDir.startsWith('memory://')) {
    dataDir = undefined;
  } else {
    dataDir = path.join(options.dataDir, 'pglite');
    fs.mkdirSync(dataDir, { recursive: true });
  }
  const release = dataDir ? claimDirectory(dataDir) : () => undefined;
  try {
    const pglite = dataDir
      ? new PGlite(dataDir)
      : new PGlite(options.pgliteTemplate ? { loadDataDir: options.pgliteTemplate } : {});
    await pglite.waitReady;
    return new PgliteDb(pglite, new PgliteStatements(pglite), release);
  } catch (error) {
    release();
    throw error;
  }
}

/** The data directory of an embedded database, as a tar file to start another from (`pgliteTemplate`). */
export async function dumpPglite(db: Db): Promise<Blob> {
  if (!(db instanceof PgliteDb)) throw new Error('dumpPglite: not an embedded (PGlite) database');
  return db.dump();
}

/**
 * PGlite is one process's database: a second process opening the same files would corrupt them. A pid file
 * keeps a second one out; a file left by a process that no longer runs is taken over.
 */
const openDirectories = new Set<string>();

function claimDirectory(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'rentpay.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      openDirectories.add(lockPath);
      return () => {
        openDirectories.delete(lockPath);
        fs.rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8').trim());
      // Our own pid in the file is a previous life of this process (e.g. pid 1 in a restarted container)
      // unless this process really has the directory open.
      const held = holder === process.pid ? openDirectories.has(lockPath) : processIsAlive(holder);
      if (Number.isInteger(holder) && holder > 0 && held) {
        throw new ConfigError(
          'DATA_DIR',
          `${path.dirname(dataDir)} is in use by another rentpay process (pid ${holder}). The embedded database ` +
            'serves one process; to run several, use PostgreSQL (DATABASE_URL).',
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new ConfigError('DATA_DIR', `could not lock ${dataDir}`);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
