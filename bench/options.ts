import { parseArgs } from 'node:util';
import { type BenchCase, CASES } from './cases.ts';
import type { DbKind } from './report.ts';

/** `npm run bench`'s command line. */
export const USAGE = `Usage: npm run bench -- [options]

  --duration <seconds>     measured seconds per case (default 10)
  --warmup <seconds>       unmeasured load before each measurement (default 2)
  --connections <n>        concurrent connections (default 50)
  --db <pglite|postgres|both>  databases to run the cases on (default both)
  --case <name>            run only this case (repeatable); cases: ${CASES.map((c) => c.name).join(', ')}
  --rounds <n>             measure every case n times, interleaved (odd rounds in the given order, even rounds
                           reversed); the table shows each case's median round and the median of the per-round
                           ratios to its yardstick (default 1)
  --db-stats               on PostgreSQL with pg_stat_statements: the database's cost per operation of each
                           case (statements, commits, rows, WAL bytes; its most frequent statements)
  --serve-processes <n>    run each case's server as n processes on the same database, the load spread over them
                           (PostgreSQL only; default 1)
  -h, --help

Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
BENCH_REDIS_URL (unset: the rate limiter counts in process memory).
Results: a table, one JSON line on stdout, and bench/results/latest.json.
`;

export class UsageError extends Error {}

export interface Options {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  dbs: DbKind[];
  cases: BenchCase[];
  dbExplicit: boolean;
  dbStats: boolean;
  serveProcesses: number;
}

export function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      db: { type: 'string' },
      case: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '1' },
      'db-stats': { type: 'boolean', default: false },
      'serve-processes': { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  const int = (name: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) {
      throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return n;
  };
  const db = values.db ?? 'both';
  if (db !== 'pglite' && db !== 'postgres' && db !== 'both') {
    throw new UsageError(`--db must be pglite, postgres or both (got "${db}")`);
  }
  const names = values.case ?? CASES.map((c) => c.name);
  const cases = names.map((name) => {
    const found = CASES.find((c) => c.name === name);
    if (!found) throw new UsageError(`unknown case "${name}"; cases: ${CASES.map((c) => c.name).join(', ')}`);
    return found;
  });
  return {
    duration: int('duration', values.duration, 1, 3600),
    warmup: int('warmup', values.warmup, 0, 600),
    connections: int('connections', values.connections, 1, 10_000),
    rounds: int('rounds', values.rounds, 1, 50),
    dbs: db === 'both' ? ['pglite', 'postgres'] : [db],
    cases,
    dbExplicit: values.db !== undefined,
    dbStats: values['db-stats'] === true,
    serveProcesses: int('serve-processes', values['serve-processes'], 1, 8),
  };
}
