import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import type { BenchCase, BenchRequest } from './cases.ts';
import { DbStatsProbe, dbStatsReport } from './db-stats.ts';
import { type Options, parseOptions, USAGE } from './options.ts';
import { percentile } from './percentile.ts';
import { type DbKind, type Failure, type Figures, fmt, median, medianRows, table } from './report.ts';
import { killAllServers, type ServerProcess, startServer } from './servers.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(BENCH_DIR, 'results', 'latest.json');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

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

type LoadResult = Pick<autocannon.Result, 'errors' | 'timeouts' | 'non2xx'> & {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
};

/**
 * The load over several server processes, the connections shared out among them (--serve-processes): rates and
 * counts add up; p50 is the requests' weighted mean of each process's p50 and p99 the worst process's p99.
 */
async function loadAll(
  ports: number[],
  request: BenchRequest,
  seconds: number,
  connections: number,
): Promise<LoadResult> {
  if (ports.length === 1) return load(ports[0]!, request, seconds, connections);
  const shares = ports.map((_, i) => Math.floor((connections + ports.length - 1 - i) / ports.length));
  const results = await Promise.all(ports.map((port, i) => load(port, request, seconds, shares[i]!)));
  const total = (pick: (r: autocannon.Result) => number) => results.reduce((sum, r) => sum + pick(r), 0);
  const requests = total((r) => r.requests.total);
  return {
    requests: { average: total((r) => r.requests.average), total: requests },
    latency: {
      p50: Math.round(total((r) => r.latency.p50 * r.requests.total) / Math.max(1, requests)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
    },
    errors: total((r) => r.errors),
    timeouts: total((r) => r.timeouts),
    non2xx: total((r) => r.non2xx),
  };
}

async function measure(
  name: string,
  db: DbKind | null,
  server: ServerProcess,
  request: BenchRequest,
  options: Options,
  referenceRps: number | null,
  more: { ports?: number[]; beforeMeasured?: () => Promise<void> } = {},
): Promise<Figures> {
  const ports = more.ports ?? [server.port];
  for (const port of ports) await preflight(port, request);
  if (options.warmup > 0) await loadAll(ports, request, options.warmup, options.connections);
  await more.beforeMeasured?.();
  const result = await loadAll(ports, request, options.duration, options.connections);
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
  more: { ports?: number[]; beforeMeasured?: () => Promise<void> } = {},
): Promise<Figures> {
  const baseUrls = (more.ports ?? [server.port]).map((port) => `http://127.0.0.1:${port}`);
  await benchCase.warmup?.(baseUrls[0]!, server.data, baseUrls);
  await more.beforeMeasured?.();
  const result = await benchCase.batch!(baseUrls[0]!, server.data, baseUrls);
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
    units: result.units,
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
    (runs * (options.duration + options.warmup + 180) +
      options.dbs.length *
        options.rounds *
        options.cases.reduce((sum, c) => sum + (c.budgetSeconds ?? 0), 0)) *
      1000,
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

  let probe: DbStatsProbe | undefined;
  if (options.dbStats && dbs.includes('postgres')) {
    const opened = await DbStatsProbe.open(postgresUrl);
    if (typeof opened === 'string') {
      log(`bench: ${opened}`);
      skipped.push(`db-stats: ${opened}`);
    } else probe = opened;
  }

  const failures: Failure[] = [];
  const measured: Figures[][] = [];
  const runCase = async (benchCase: BenchCase, db: DbKind): Promise<Figures | undefined> => {
    log(`bench: ${benchCase.name} on ${db} ...`);
    let prepared: PreparedDb | undefined;
    let server: ServerProcess | undefined;
    const others: ServerProcess[] = [];
    try {
      prepared = await prepareDatabase(db, postgresUrl);
      pendingCleanup = prepared.cleanup;
      const file = benchCase.server ?? 'app-server.ts';
      const env = serverEnv({ ...prepared.env, BENCH_CASE: benchCase.name });
      server = await startServer(file, env, `${benchCase.name}/${db}`);
      // Several serve processes share one PostgreSQL; PGlite's directory is one process's, a yardstick is one server.
      const serveProcesses = db === 'postgres' && !benchCase.server ? options.serveProcesses : 1;
      for (let n = 2; n <= serveProcesses; n++) {
        others.push(
          await startServer(file, { ...env, BENCH_SERVE_ONLY: '1' }, `${benchCase.name}/${db}#${n}`),
        );
      }
      const stats = db === 'postgres' ? probe : undefined;
      const more = {
        ports: [server, ...others].map((s) => s.port),
        beforeMeasured: stats && (() => stats.reset([server!, ...others].map((s) => s.pid))),
      };
      const figures = benchCase.batch
        ? await measureBatch(benchCase, db, server, reference.requests_per_second, more)
        : await measure(
            benchCase.name,
            db,
            server,
            benchCase.request!(server.data),
            benchCase.connections ? { ...options, connections: benchCase.connections } : options,
            reference.requests_per_second,
            more,
          );
      if (benchCase.connections) figures.extra = { ...figures.extra, connections: benchCase.connections };
      if (serveProcesses > 1) figures.extra = { ...figures.extra, serve_processes: serveProcesses };
      if (stats) {
        stats.end();
        // Read once the servers are gone: a backend flushes its WAL counters at exit, otherwise every few seconds.
        await Promise.all([server, ...others].map((s) => s.stop()));
        await stats.settle();
        figures.db_stats = await stats.read(figures.units ?? figures.requests);
      }
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
      await Promise.all([server, ...others].map((s) => s?.stop()));
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

  await probe?.close();
  process.stdout.write(`\n${table(reference, rows, failures)}\n\n`);
  const costs = dbStatsReport(rows);
  if (costs) process.stdout.write(`${costs}\n\n`);
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
