import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { type BenchCase, type BenchRequest, CASES } from './cases.ts';
import { percentile } from './percentile.ts';
import { killAllServers, type ServerProcess, startServer } from './servers.ts';

const USAGE = `Usage: npm run bench -- [options]

  --duration <seconds>     measured seconds per case (default 10)
  --warmup <seconds>       unmeasured load before each measurement (default 2)
  --connections <n>        concurrent connections (default 50)
  --db <pglite|postgres|both>  databases to run the cases on (default both)
  --case <name>            run only this case (repeatable); cases: ${CASES.map((c) => c.name).join(', ')}
  --rounds <n>             measure every case n times, interleaved (odd rounds in the given order, even rounds
                           reversed); the table shows each case's median round and the median of the per-round
                           ratios to its yardstick (default 1)
  -h, --help

Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
BENCH_REDIS_URL (unset: the rate limiter counts in process memory).
Results: a table, one JSON line on stdout, and bench/results/latest.json.
`;

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(BENCH_DIR, 'results', 'latest.json');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
type DbKind = 'pglite' | 'postgres';

class UsageError extends Error {}

interface Options {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  dbs: DbKind[];
  cases: BenchCase[];
  dbExplicit: boolean;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      db: { type: 'string' },
      case: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '1' },
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
  };
}

interface Figures {
  case: string;
  db: DbKind | null;
  /** What requests_per_second counts: "req" for load cases, e.g. "users" for a batch. */
  unit: string;
  requests_per_second: number;
  p99_ms: number;
  p50_ms: number;
  requests: number;
  errors: number;
  timeouts: number;
  non_2xx: number;
  ratio_to_reference: number | null;
  /** Against the case's own yardstick (a hand-written equivalent) measured on the same database in this run. */
  vs_yardstick?: { case: string; ratio: number; p99_ms: number; round_ratios?: number[] };
  /** With --rounds: every round's rate, in the order measured; the row's figures are the median round's. */
  round_rates?: number[];
  extra?: Record<string, number>;
}

interface Failure {
  case: string;
  db: DbKind;
  error: string;
}

/** The database of the run in progress, dropped even when the bench is interrupted. */
let pendingCleanup: (() => Promise<void>) | undefined;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** The base environment of every server process; the database settings are added per run. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'OPERATOR_TOKEN', 'PAYMENT_PROCESSOR', 'PUBLIC_URL']) {
    delete env[name];
  }
  const redisUrl = process.env.BENCH_REDIS_URL;
  return {
    ...env,
    SERVICE_ENV: 'sandbox',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...extra,
  };
}

async function preflight(port: number, request: BenchRequest): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  const expected = request.expectStatus ?? 200;
  if (response.status !== expected) {
    throw new Error(
      `${request.method} ${request.path} answered ${response.status}, expected ${expected}: ${body.slice(0, 300)}`,
    );
  }
}

async function load(
  port: number,
  request: BenchRequest,
  seconds: number,
  connections: number,
): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}${request.path}`,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    duration: seconds,
  });
}

async function measure(
  name: string,
  db: DbKind | null,
  server: ServerProcess,
  request: BenchRequest,
  options: Options,
  referenceRps: number | null,
): Promise<Figures> {
  await preflight(server.port, request);
  if (options.warmup > 0) await load(server.port, request, options.warmup, options.connections);
  const result = await load(server.port, request, options.duration, options.connections);
  return {
    case: name,
    db,
    unit: 'req',
    requests_per_second: Math.round(result.requests.average),
    p99_ms: result.latency.p99,
    p50_ms: result.latency.p50,
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non_2xx: result.non2xx,
    ratio_to_reference:
      referenceRps && referenceRps > 0 ? Number((result.requests.average / referenceRps).toFixed(3)) : null,
  };
}

async function measureBatch(
  benchCase: BenchCase,
  db: DbKind,
  server: ServerProcess,
  referenceRps: number,
): Promise<Figures> {
  const result = await benchCase.batch!(`http://127.0.0.1:${server.port}`, server.data);
  const at = (q: number) => percentile(result.latenciesMs, q);
  const rate = result.units / result.seconds;
  return {
    case: benchCase.name,
    db,
    unit: benchCase.unit ?? 'units',
    requests_per_second: Math.round(rate),
    p99_ms: at(0.99),
    p50_ms: at(0.5),
    requests: result.latenciesMs.length,
    errors: 0,
    timeouts: 0,
    non_2xx: 0,
    ratio_to_reference: referenceRps > 0 ? Number((rate / referenceRps).toFixed(3)) : null,
    ...(result.extra ? { extra: result.extra } : {}),
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

interface PreparedDb {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A database nobody else uses: a fresh PGlite directory, or a fresh schema on PostgreSQL. */
async function prepareDatabase(kind: DbKind, postgresUrl: string): Promise<PreparedDb> {
  if (kind === 'pglite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-bench-'));
    return {
      env: { DATA_DIR: dir },
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: postgresUrl, max: 1, connectionTimeoutMillis: 5_000 });
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  // PGlite is not used, but the app still wants a directory for stored files.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-bench-'));
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dir },
    async cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
      const pool = new pg.Pool({ connectionString: postgresUrl, max: 1, connectionTimeoutMillis: 5_000 });
      try {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await pool.end();
      }
    },
  };
}

async function postgresProblem(url: string): Promise<string | undefined> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 3_000 });
  try {
    await pool.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function table(reference: Figures, rows: Figures[], failures: Failure[]): string {
  const header = [
    'case',
    'db',
    'rate',
    'unit',
    'p50 ms',
    'p99 ms',
    'errors',
    'timeouts',
    'non-2xx',
    'vs fastify',
    'notes',
  ];
  const line = (f: Figures) => [
    f.case,
    f.db ?? '-',
    fmt(f.requests_per_second),
    `${f.unit}/s`,
    fmt(f.p50_ms),
    fmt(f.p99_ms),
    String(f.errors),
    String(f.timeouts),
    String(f.non_2xx),
    f.ratio_to_reference === null ? '-' : `${fmt(f.ratio_to_reference, 3)}x`,
    [
      ...(f.vs_yardstick ? [`${fmt(f.vs_yardstick.ratio, 3)}x ${f.vs_yardstick.case}`] : []),
      ...(f.round_rates ? [`rounds ${f.round_rates.map((rate) => fmt(rate)).join(' / ')}`] : []),
      ...Object.entries(f.extra ?? {}).map(([key, value]) => `${key}=${value}`),
    ].join(' '),
  ];
  const body = [header, line(reference), ...rows.map(line)];
  for (const failure of failures)
    body.push([failure.case, failure.db, 'FAILED', '', '', '', '', '', '', '', '']);
  const widths = header.map((_, i) => Math.max(...body.map((r) => (r[i] ?? '').length)));
  const render = (r: string[]) =>
    r
      .map((cell, i) =>
        i < 2 || i === 3 || i === 10 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0),
      )
      .join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [render(header), rule, ...body.slice(1).map(render)].join('\n');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : Number((((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2).toFixed(3));
}

/** One row per case and database: the round with the median rate, with every round's rate beside it. */
function medianRows(rounds: Figures[][], cases: BenchCase[], dbs: DbKind[], failures: Failure[]): Figures[] {
  const rows: Figures[] = [];
  for (const db of dbs) {
    for (const benchCase of cases) {
      if (failures.some((f) => f.case === benchCase.name && f.db === db)) continue;
      const runs = rounds.flatMap((round) => round.filter((r) => r.case === benchCase.name && r.db === db));
      if (runs.length === 0) continue;
      const byRate = [...runs].sort((a, b) => a.requests_per_second - b.requests_per_second);
      const row = byRate[Math.floor((byRate.length - 1) / 2)]!;
      rows.push(runs.length > 1 ? { ...row, round_rates: runs.map((r) => r.requests_per_second) } : row);
    }
  }
  return rows;
}

function gitCommit(): string | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  let options: Options | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (!options) {
    process.stdout.write(USAGE);
    return 0;
  }

  const runs = options.dbs.length * options.cases.length * options.rounds + 1;
  // Generous per run (start-up, migrations, warm-up, shutdown), but the bench must always end by itself.
  const watchdog = setTimeout(
    () => {
      log('bench: took far longer than expected; stopping.');
      killAllServers();
      process.exit(1);
    },
    runs * (options.duration + options.warmup + 180) * 1000,
  );
  watchdog.unref();

  const postgresUrl = process.env.BENCH_DATABASE_URL || DEFAULT_DATABASE_URL;
  let dbs = options.dbs;
  const skipped: string[] = [];
  if (dbs.includes('postgres')) {
    const problem = await postgresProblem(postgresUrl);
    if (problem) {
      const message = `PostgreSQL at ${redact(postgresUrl)} is unreachable (${problem}); set BENCH_DATABASE_URL or start it.`;
      if (options.dbExplicit) {
        log(`bench: ${message}`);
        return 1;
      }
      log(`bench: skipping the PostgreSQL runs: ${message}`);
      skipped.push(`postgres: ${message}`);
      dbs = dbs.filter((d) => d !== 'postgres');
    }
  }

  log(
    `bench: ${options.duration}s per case after ${options.warmup}s warm-up, ${options.connections} connections, ` +
      `rate limiter in ${process.env.BENCH_REDIS_URL ? 'Redis' : 'memory'}`,
  );

  const referenceRequest: BenchRequest = { method: 'GET', path: '/' };
  log('bench: reference: bare Fastify GET / ...');
  const referenceServer = await startServer('reference-server.ts', serverEnv({}), 'reference');
  let reference: Figures;
  try {
    reference = await measure('fastify-hello-world', null, referenceServer, referenceRequest, options, null);
  } finally {
    await referenceServer.stop();
  }
  log(`bench:   ${fmt(reference.requests_per_second)} req/s, p99 ${reference.p99_ms} ms`);

  reference.ratio_to_reference = 1;

  const failures: Failure[] = [];
  const measured: Figures[][] = [];
  const runCase = async (benchCase: BenchCase, db: DbKind): Promise<Figures | undefined> => {
    log(`bench: ${benchCase.name} on ${db} ...`);
    let prepared: PreparedDb | undefined;
    let server: ServerProcess | undefined;
    try {
      prepared = await prepareDatabase(db, postgresUrl);
      pendingCleanup = prepared.cleanup;
      server = await startServer(
        benchCase.server ?? 'app-server.ts',
        serverEnv({ ...prepared.env, BENCH_CASE: benchCase.name }),
        `${benchCase.name}/${db}`,
      );
      const figures = benchCase.batch
        ? await measureBatch(benchCase, db, server, reference.requests_per_second)
        : await measure(
            benchCase.name,
            db,
            server,
            benchCase.request!(server.data),
            options,
            reference.requests_per_second,
          );
      log(
        `bench:   ${fmt(figures.requests_per_second)} ${figures.unit}/s, p99 ${figures.p99_ms} ms, ` +
          `${figures.ratio_to_reference ?? '-'}x the reference`,
      );
      if (figures.errors + figures.non_2xx > 0) {
        log(`bench:   WARNING: ${figures.errors} errors and ${figures.non_2xx} non-2xx responses`);
      }
      return figures;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`bench:   FAILED: ${message}`);
      failures.push({ case: benchCase.name, db, error: message });
      return undefined;
    } finally {
      await server?.stop();
      pendingCleanup = undefined;
      await prepared?.cleanup().catch((error: unknown) => log(`bench: cleanup failed: ${String(error)}`));
    }
  };
  for (const db of dbs) {
    for (let round = 1; round <= options.rounds; round++) {
      if (options.rounds > 1) log(`bench: round ${round} of ${options.rounds} on ${db}`);
      // Even rounds run the cases in reverse, so no case always runs first (or last) on a warming database.
      const order = round % 2 === 1 ? options.cases : [...options.cases].reverse();
      const figures: Figures[] = [];
      for (const benchCase of order) {
        if (failures.some((f) => f.case === benchCase.name && f.db === db)) continue;
        const result = await runCase(benchCase, db);
        if (result) figures.push(result);
      }
      measured.push(figures);
    }
  }
  const rows = medianRows(measured, options.cases, dbs, failures);

  for (const row of rows) {
    const yardstick = options.cases.find((c) => c.name === row.case)?.yardstick;
    if (!yardstick) continue;
    // Each round's ratio pairs runs made minutes apart, not a slow round of one with a fast round of the other.
    const roundRatios = measured.flatMap((round) => {
      const own = round.find((r) => r.case === row.case && r.db === row.db);
      const other = round.find((r) => r.case === yardstick && r.db === row.db);
      return own && other && other.requests_per_second > 0
        ? [Number((own.requests_per_second / other.requests_per_second).toFixed(3))]
        : [];
    });
    const other = rows.find((r) => r.case === yardstick && r.db === row.db);
    if (roundRatios.length === 0 || !other) continue;
    row.vs_yardstick = {
      case: yardstick,
      ratio: median(roundRatios),
      p99_ms: other.p99_ms,
      ...(options.rounds > 1 ? { round_ratios: roundRatios } : {}),
    };
    log(
      `bench: ${row.case} on ${row.db}: ${row.vs_yardstick.ratio}x ${yardstick} (p99 ${row.p99_ms} vs ${other.p99_ms} ms)` +
        (options.rounds > 1 ? `; median of the rounds' ratios ${roundRatios.join(', ')}` : ''),
    );
  }

  const report = {
    bench: 'rentpay',
    date: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}`,
    duration_s: options.duration,
    warmup_s: options.warmup,
    connections: options.connections,
    rounds: options.rounds,
    rate_limit_store: process.env.BENCH_REDIS_URL ? 'redis' : 'memory',
    reference,
    cases: rows,
    failures,
    skipped,
  };
  fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);

  process.stdout.write(`\n${table(reference, rows, failures)}\n\n`);
  for (const note of skipped) process.stdout.write(`skipped ${note}\n`);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  log(`bench: written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  return failures.length > 0 ? 1 : 0;
}

process.on('exit', killAllServers);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`bench: ${signal}; stopping the server processes.`);
    killAllServers();
    const cleanup = pendingCleanup?.() ?? Promise.resolve();
    const timeout = new Promise((resolve) => setTimeout(resolve, 5_000));
    void Promise.race([cleanup.catch(() => undefined), timeout]).then(() => process.exit(130));
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    log(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killAllServers();
    process.exitCode = 1;
  },
);
