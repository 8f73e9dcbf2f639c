import { type PGlite, parse, protocol } from '@electric-sql/pglite';

/** Statements whose text is cached as a prepared statement: plain DML. Anything else (DDL, SET, LISTEN) runs as is. */
const CACHEABLE = /^\s*(?:SELECT|WITH|INSERT|UPDATE|DELETE)\b/i;
/** Statements that may change what a cached statement returns: the cache is dropped before the next one runs. */
const CHANGES_SCHEMA = /^\s*(?:CREATE|ALTER|DROP)\b/i;
/** PostgreSQL's answer to a prepared statement whose tables' columns changed since it was parsed. */
const RESULT_TYPE_CHANGED = 'cached plan must not change result type';

interface Prepared {
  name: string;
  /** The parameters' type OIDs, as the statement's description gave them: each value is serialized for its type. */
  types: number[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/**
 * PGlite's own query() parses, analyses and plans its SQL on every call, in six calls into its WebAssembly: a job
 * claim costs 4.4 ms there, and 0.4 ms as a prepared statement. So each statement text is prepared once per database
 * (a named statement of its one session, as node-postgres's named queries are on PostgreSQL), and a call is one
 * Bind/Describe/Execute/Sync message. At most `max` are kept; the least recently used are closed. Values are
 * serialized and rows parsed by PGlite's own type maps, as query() does. After five calls PostgreSQL may keep one
 * generic plan for a statement (when it is estimated no dearer than planning each call): a statement must then not
 * depend on its values' row estimates for its plan's shape (see the job claim's UPDATE, which takes its rows by
 * `id = ANY (ARRAY(...))`).
 *
 * The caller holds PGlite's transaction lock (a transaction's callback, or transactionLock() around a single query);
 * each call takes its query lock.
 */
export class PgliteStatements {
  readonly #pglite: PGlite;
  readonly #max: number;
  readonly #prepared = new Map<string, Prepared>();
  /** Names of evicted statements, closed with the next statement prepared. */
  #toClose: string[] = [];
  #stale = false;
  #counter = 0;

  constructor(pglite: PGlite, max = 1_000) {
    this.#pglite = pglite;
    this.#max = max;
  }

  /** Runs fn holding PGlite's transaction lock: no transaction of another caller is open meanwhile. */
  transactionLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.#pglite._runExclusiveTransaction(fn);
  }

  /**
   * Whether run() takes this statement; the others (DDL, SET, LISTEN) go to PGlite's own query(). A statement that may
   * change tables' columns has every prepared statement prepared afresh after it.
   */
  takes(sql: string): boolean {
    if (CACHEABLE.test(sql)) return true;
    if (CHANGES_SCHEMA.test(sql)) this.#stale = true;
    return false;
  }

  /**
   * Runs one statement that takes() accepted; `inTransaction` when inside an open transaction (nothing is synced to
   * disk until it ends).
   */
  async run<Row>(sql: string, values: unknown[], inTransaction: boolean): Promise<Row[]> {
    if (this.#pglite.closed) throw new Error('PGlite is closed');
    try {
      return await this.#pglite.runExclusive(() => this.#named<Row>(sql, values, inTransaction));
    } catch (error) {
      if ((error as { code?: string }).code !== '0A000' || !String(error).includes(RESULT_TYPE_CHANGED))
        throw error;
      // A table's columns changed under a prepared statement: prepare every statement afresh. Inside a transaction
      // the error has already aborted it; outside, the statement is simply run again.
      this.#stale = true;
      if (inTransaction) throw error;
      return this.#pglite.runExclusive(() => this.#named<Row>(sql, values, inTransaction));
    }
  }

  /** Sends the messages as one; `syncToFs` writes PGlite's files after (a statement outside a transaction). */
  async #exec(messages: Uint8Array[], syncToFs: boolean) {
    return (await this.#pglite.execProtocol(concat(messages), { syncToFs })).messages;
  }

  async #forgetAll(): Promise<void> {
    this.#stale = false;
    this.#prepared.clear();
    this.#toClose = [];
    await this.#exec([protocol.serialize.query('DEALLOCATE ALL')], false);
  }

  async #prepare(sql: string): Promise<Prepared> {
    if (this.#stale) await this.#forgetAll();
    const name = `rp_${++this.#counter}`;
    const closing = this.#toClose.map((old) => protocol.serialize.close({ type: 'S', name: old }));
    this.#toClose = [];
    const described = await this.#exec(
      [
        ...closing,
        protocol.serialize.parse({ name, text: sql, types: [] }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ],
      false,
    );
    const prepared = { name, types: parse.parseDescribeStatementResults(described) };
    this.#prepared.set(sql, prepared);
    if (this.#prepared.size > this.#max) {
      const [oldest] = this.#prepared.keys();
      this.#toClose.push(this.#prepared.get(oldest!)!.name);
      this.#prepared.delete(oldest!);
    }
    return prepared;
  }

  #serialize(values: unknown[], types: number[]): (string | Uint8Array | null)[] {
    const serializers = this.#pglite.serializers;
    return values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = serializers[types[i]!];
      return serialize ? serialize(value) : String(value);
    });
  }

  async #named<Row>(sql: string, values: unknown[], inTransaction: boolean): Promise<Row[]> {
    let prepared = this.#stale ? undefined : this.#prepared.get(sql);
    if (prepared) {
      // Most recently used last: the first key is the one to evict.
      this.#prepared.delete(sql);
      this.#prepared.set(sql, prepared);
    } else {
      prepared = await this.#prepare(sql);
    }
    const messages = await this.#exec(
      [
        protocol.serialize.bind({
          statement: prepared.name,
          values: this.#serialize(values, prepared.types),
        }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ],
      !inTransaction,
    );
    return parse.parseResults(messages, this.#pglite.parsers)[0]!.rows as Row[];
  }
}
