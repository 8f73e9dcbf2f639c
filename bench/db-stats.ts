/**
 * `--db-stats`: what one operation of a case costs the PostgreSQL server, from pg_stat_statements (statements,
 * rows) and pg_stat_wal (WAL written). Both are reset before a case's measured part and read once its server
 * processes have stopped (a backend flushes its WAL counters when it exits, and otherwise only every few
 * seconds), then divided by the case's operations.
 */
import fs from 'node:fs';
import pg from 'pg';
import { fmt } from './report.ts';

export interface StatementCost {
  query: string;
  calls_per_op: number;
  rows_per_op: number;
  mean_ms: number;
}

export interface DbStats {
  operations: number;
  /** Every statement the server ran, BEGIN and COMMIT included: with node-postgres each is one round trip. */
  statements_per_op: number;
  /** Transactions committed, a statement outside BEGIN … COMMIT included. */
  transactions_per_op: number;
  rows_per_op: number;
  wal_bytes_per_op: number;
  wal_records_per_op: number;
  wal_fpi_per_op: number;
  /** The statements' execution time on the server (pg_stat_statements total_exec_time). */
  exec_ms_per_op: number;
  /**
   * CPU the whole PostgreSQL server (backends, WAL writer, checkpointer...) used, when it runs on this machine and
   * its processes can be read in /proc; null otherwise.
   */
  cpu_ms_per_op: number | null;
  /** CPU the case's server processes (the app, or a yardstick) used, with any processes they started. */
  app_cpu_ms_per_op: number | null;
  /** CPU the bench process itself used: the load generator, the webhook receiver, the case's driver. */
  bench_cpu_ms_per_op: number;
  /** The statements run most often, most first. */
  top: StatementCost[];
}

const TOP = 12;
/** The probe's own statements, left out of the figures. */
const OWN = `query NOT ILIKE '%pg_stat_%' AND query NOT ILIKE '%pg_backend_pid%'`;

export class DbStatsProbe {
  /** pg_stat_database's xact_commit at the reset: commits are counted from it, autocommitted statements too. */
  #commitsAtReset = 0;
  #postmaster: number | undefined;
  #cpuAtReset: number | undefined;
  #appPids: number[] = [];
  #appCpu: { atReset?: number; atEnd?: number } = {};
  #benchCpu: { atReset: number; atEnd?: number } = { atReset: 0 };

  private constructor(private readonly pool: pg.Pool) {}

  /** A probe on the database at `url`, or the reason it cannot measure there. */
  static async open(url: string): Promise<DbStatsProbe | string> {
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
    try {
      await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await pool.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
      await pool.query('SELECT 1 FROM pg_stat_wal');
      return new DbStatsProbe(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      return `no database figures: pg_stat_statements is not available (${reason}); start PostgreSQL 14 or later with shared_preload_libraries=pg_stat_statements`;
    }
  }

  /** `appPids`: the case's server processes, whose CPU is counted from here to end(). */
  async reset(appPids: number[]): Promise<void> {
    // An idle backend flushes its counters within a second: the set-up's and warm-up's go before the reset.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await this.pool.query('SELECT pg_stat_statements_reset()');
    await this.pool.query("SELECT pg_stat_reset_shared('wal')");
    this.#commitsAtReset = await this.#commits();
    const { rows } = await this.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    this.#postmaster = parentOf(rows[0]!.pid);
    this.#cpuAtReset = this.#postmaster === undefined ? undefined : treeCpuMs(this.#postmaster);
    this.#appPids = appPids;
    this.#appCpu = { atReset: sumCpuMs(appPids) };
    this.#benchCpu = { atReset: ownCpuMs() };
  }

  /** The measured part is over: the server processes' and the bench's CPU is read here, while they still run. */
  end(): void {
    this.#appCpu.atEnd = sumCpuMs(this.#appPids);
    this.#benchCpu.atEnd = ownCpuMs();
  }

  async #commits(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Waits (up to 10 s) until no other session is connected to this database, so every counter is flushed. */
  async settle(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const { rows } = await this.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      if ((rows[0]?.n ?? 0) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async read(operations: number): Promise<DbStats> {
    const per = (n: number) => Number((n / Math.max(1, operations)).toFixed(2));
    const statements = await this.pool.query<{ query: string; calls: string; rows: string; mean_ms: number }>(
      `SELECT query, calls, rows, mean_exec_time AS mean_ms FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${OWN}
        ORDER BY calls DESC`,
    );
    const wal = await this.pool.query<{ wal_bytes: string; wal_records: string; wal_fpi: string }>(
      'SELECT wal_bytes, wal_records, wal_fpi FROM pg_stat_wal',
    );
    const sum = (pick: (row: (typeof statements.rows)[number]) => number) =>
      statements.rows.reduce((total, row) => total + pick(row), 0);
    const commits = (await this.#commits()) - this.#commitsAtReset;
    const { wal_bytes, wal_records, wal_fpi } = wal.rows[0]!;
    const cpuNow = this.#postmaster === undefined ? undefined : treeCpuMs(this.#postmaster);
    const cpuMs =
      cpuNow === undefined || this.#cpuAtReset === undefined ? undefined : cpuNow - this.#cpuAtReset;
    return {
      operations,
      statements_per_op: per(sum((row) => Number(row.calls))),
      transactions_per_op: per(commits),
      rows_per_op: per(sum((row) => Number(row.rows))),
      wal_bytes_per_op: Math.round(Number(wal_bytes) / Math.max(1, operations)),
      wal_records_per_op: per(Number(wal_records)),
      wal_fpi_per_op: per(Number(wal_fpi)),
      exec_ms_per_op: Number(
        (sum((row) => row.mean_ms * Number(row.calls)) / Math.max(1, operations)).toFixed(3),
      ),
      cpu_ms_per_op: cpuMs === undefined ? null : perOp(cpuMs, operations),
      app_cpu_ms_per_op: perOpBetween(this.#appCpu.atReset, this.#appCpu.atEnd, operations),
      bench_cpu_ms_per_op: perOpBetween(
        this.#benchCpu.atReset,
        this.#benchCpu.atEnd ?? ownCpuMs(),
        operations,
      )!,
      top: statements.rows.slice(0, TOP).map((row) => ({
        query: row.query.replace(/\s+/g, ' ').slice(0, 110),
        calls_per_op: per(Number(row.calls)),
        rows_per_op: per(Number(row.rows)),
        mean_ms: Number(row.mean_ms.toFixed(3)),
      })),
    };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Clock ticks of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses: state, ppid, … (fields 3 onward of proc(5)).
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The postmaster of the backend `pid`, when this process can see it (the database runs on this machine). */
function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : undefined;
}

const perOp = (ms: number, operations: number) => Number((ms / Math.max(1, operations)).toFixed(3));

function perOpBetween(from: number | undefined, to: number | undefined, operations: number): number | null {
  return from === undefined || to === undefined ? null : perOp(to - from, operations);
}

/** This process's CPU milliseconds so far, user and system. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The CPU milliseconds of several process trees (see treeCpuMs); undefined when one cannot be read. */
function sumCpuMs(pids: number[]): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const ms = treeCpuMs(pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

/**
 * CPU milliseconds of a process so far (the PostgreSQL server's postmaster, a bench server): its own and its exited
 * children's (utime, stime, cutime, cstime), plus every live child's. The difference of two readings is what the
 * process and its children used between them.
 */
function treeCpuMs(parent: number): number | undefined {
  const own = statFields(parent);
  if (!own) return undefined;
  // proc(5) fields 14 to 17, here from index 11.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === parent) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_MS;
}

/** The --db-stats section printed after the table. */
export function dbStatsReport(rows: { case: string; unit: string; db_stats?: DbStats }[]): string {
  const out: string[] = [];
  for (const row of rows) {
    const s = row.db_stats;
    if (!s) continue;
    const unit = row.unit === 'req' ? 'request' : row.unit.replace(/ies$/, 'y').replace(/s$/, '');
    out.push(
      `${row.case} on postgres, per ${unit} (${fmt(s.operations)} measured): ${s.statements_per_op} statements ` +
        `(round trips), ${s.transactions_per_op} commits, ${s.rows_per_op} rows, ${fmt(s.wal_bytes_per_op)} WAL bytes ` +
        `in ${s.wal_records_per_op} records (${s.wal_fpi_per_op} full-page images), ${s.exec_ms_per_op} ms executing, ` +
        `${s.cpu_ms_per_op === null ? 'server CPU not readable here' : `${s.cpu_ms_per_op} ms of the server's CPU`}; ` +
        `CPU outside the database: ${s.app_cpu_ms_per_op ?? '?'} ms in the case's server processes, ` +
        `${s.bench_cpu_ms_per_op} ms in the bench's`,
    );
    for (const top of s.top) {
      out.push(
        `  ${String(top.calls_per_op).padStart(7)} calls  ${String(top.rows_per_op).padStart(7)} rows  ` +
          `${top.mean_ms.toFixed(3).padStart(8)} ms  ${top.query}`,
      );
    }
  }
  return out.join('\n');
}
