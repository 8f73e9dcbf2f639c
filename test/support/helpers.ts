import { type ChildProcess, execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { jobHandlers } from '../../src/jobs.ts';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import { type Config, loadConfig } from '../../src/platform/config/config.ts';
import { type Db, dumpPglite, openDatabase } from '../../src/platform/db/db.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/db/migrate.ts';
import { randomBase62 } from '../../src/platform/ids.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { leasePglite } from './pglite-pool.ts';

/** Set by .ci/run for the second pass: the same suites then run on the real PostgreSQL. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
export const OPERATOR_TOKEN = 'rpo_test_operator_token_0123456789abcdef';

export interface TestDatabase {
  /** DATABASE_URL for the app: a fresh schema on PostgreSQL, or undefined for in-memory PGlite. */
  databaseUrl: string | undefined;
  dataDir: string;
  open(): Promise<Db>;
  drop(): Promise<void>;
}

/**
 * A database of its own for one test: an in-memory PGlite (each `open()` a separate, empty one, reused within the
 * process once closed), or on PostgreSQL a fresh schema reached through search_path, so test files can run in
 * parallel against one server. PGlite starts migrated unless `migrated` is false (the schema on PostgreSQL always
 * starts empty; the app migrates it).
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const migrated = options.migrated ?? true;
    return {
      databaseUrl: undefined,
      dataDir: 'memory://',
      open: async () =>
        migrated
          ? leasePglite(migratedPglite)
          : openDatabase({
              databaseUrl: undefined,
              dataDir: 'memory://',
              pgliteTemplate: await emptyPglite(),
            }),
      drop: async () => undefined,
    };
  }
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  return {
    databaseUrl,
    dataDir: 'memory://',
    open: () => openDatabase({ databaseUrl, dataDir: 'memory://', poolSize: 5 }),
    async drop() {
      const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

/** Names a template by PGlite's version and the migrations, so a change to either makes a new one. */
function templateKey(): string {
  const hash = crypto.createHash('sha256');
  hash.update(JSON.parse(fs.readFileSync('node_modules/@electric-sql/pglite/package.json', 'utf8')).version);
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * A PGlite data directory as a tar file (`dumpDataDir`), made once by `make` and kept in the temporary folder for the
 * next test process (written by rename, so two processes making it at once cannot read half a file).
 */
async function pgliteTarTemplate(name: string, make: (db: Db) => Promise<unknown>): Promise<Blob> {
  const file = path.join(os.tmpdir(), `rentpay-test-pglite-${name}-${templateKey()}.tar`);
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const db = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://' });
  try {
    await make(db);
    const dump = await dumpPglite(db);
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
    return dump;
  } finally {
    await db.close();
  }
}

let migratedTemplate: Promise<Blob> | undefined;
let emptyTemplate: Promise<Blob> | undefined;

/**
 * A migrated PGlite data directory every in-memory test database starts from: creating and migrating a cluster
 * takes seconds, loading this a fraction of one.
 */
export function migratedPglite(): Promise<Blob> {
  migratedTemplate ??= pgliteTarTemplate('migrated', migrate);
  return migratedTemplate;
}

/**
 * A new, empty PGlite cluster (nothing migrated), for tests of the migrations themselves: loading it costs a fraction
 * of creating one (initdb).
 */
function emptyPglite(): Promise<Blob> {
  emptyTemplate ??= pgliteTarTemplate('empty', async () => undefined);
  return emptyTemplate;
}

const dataDirTemplates = new Map<string, Promise<string>>();

/**
 * Puts a PGlite cluster in `dataDir` (a DATA_DIR folder, as `rentpay` and openDatabase use it), migrated unless
 * `migrated` is false: a copy of a template folder made once per PGlite version and set of migrations and kept in the
 * temporary folder. Creating a cluster on disk (initdb) costs seconds of writes and syncs, copying one a fraction of a
 * second; what it holds is the same. A no-op on PostgreSQL, whose test schema the app or test migrates itself.
 */
export async function pgliteDataDir(
  dataDir: string,
  options: { migrated?: boolean; evenOnPostgres?: boolean } = {},
): Promise<void> {
  // On a PostgreSQL run the app uses TEST_DATABASE_URL, not a data directory, unless the test opens PGlite itself.
  if (TEST_DATABASE_URL && !options.evenOnPostgres) return;
  const name = options.migrated === false ? 'empty' : 'migrated';
  let template = dataDirTemplates.get(name);
  if (!template) {
    template = pgliteDirectoryTemplate(name);
    dataDirTemplates.set(name, template);
  }
  fs.cpSync(await template, path.join(dataDir, 'pglite'), { recursive: true });
}

async function pgliteDirectoryTemplate(name: 'empty' | 'migrated'): Promise<string> {
  const folder = path.join(os.tmpdir(), `rentpay-test-pglite-dir-${name}-${templateKey()}`);
  if (fs.existsSync(folder)) return folder;
  const staging = fs.mkdtempSync(`${folder}.${process.pid}-`);
  try {
    const db = await openDatabase({ databaseUrl: undefined, dataDir: staging });
    try {
      if (name === 'migrated') await migrate(db);
    } finally {
      await db.close();
    }
    try {
      fs.renameSync(path.join(staging, 'pglite'), folder);
    } catch (error) {
      // Another process made it first: theirs is as good.
      if (!fs.existsSync(folder)) throw error;
    }
    return folder;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ SERVICE_ENV: 'sandbox', LOG_LEVEL: 'info' }),
    dataDir: 'memory://',
    databaseUrl: undefined,
    operatorToken: OPERATOR_TOKEN,
    publicUrl: 'http://127.0.0.1:8080',
    // Each app stores fetched documents in a folder of its own, never in the checkout's ./data.
    documentsDir: fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-test-documents-')),
    ...overrides,
  };
}

/** Collects the JSON log lines an app writes, to assert on them (e.g. that no secret is logged). */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestApp {
  app: FastifyInstance;
  clock: FakeClock;
  db: Db;
  logs: LogCapture;
  database: TestDatabase;
  config: Config;
  /** Creates an integrator through the Operator API; returns its id and server token. */
  createIntegrator(
    body?: Record<string, unknown>,
  ): Promise<{ id: string; token: string; webhookSecret: string }>;
  close(): Promise<void>;
}

export async function startTestApp(
  options: { config?: Partial<Config>; clock?: FakeClock; database?: TestDatabase; db?: Db } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const clock = options.clock ?? new FakeClock('2026-03-01T09:00:00.000Z');
  const config = testConfig({ databaseUrl: database.databaseUrl, ...options.config });
  const logs = new LogCapture();
  const db = options.db ?? (await database.open());
  const app = await buildApp(config, { clock, db, logger: createLogger('info', logs) });
  await app.ready();
  return {
    app,
    clock,
    db,
    logs,
    database,
    config,
    async createIntegrator(body = {}) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/operator/integrators',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        payload: { name: 'Test platform', ...body },
      });
      if (response.statusCode !== 201)
        throw new Error(`create integrator: ${response.statusCode} ${response.body}`);
      const created = response.json();
      return {
        id: created.integrator_id,
        token: created.server_token,
        webhookSecret: created.webhook_secret,
      };
    },
    async close() {
      await app.close();
      if (!options.db) await db.close();
      fs.rmSync(config.documentsDir, { recursive: true, force: true });
      if (!options.database) await database.drop();
    },
  };
}

export function tokenHeader(token: string): Record<string, string> {
  return { authorization: `Token ${token}` };
}

/** Runs every due job once with the service's real handlers, on the app's database and fake clock. */
export function runJobs(t: Pick<TestApp, 'app' | 'db' | 'clock' | 'config'>): Promise<number> {
  return new Worker({
    db: t.db,
    clock: t.clock,
    log: createLogger('silent'),
    handlers: jobHandlers(t.config, t.app.ctx),
  }).drain();
}

/**
 * A database a CLI process can open once the test has closed its own: a DATA_DIR folder on PGlite (which one process
 * opens at a time; it starts migrated, see pgliteDataDir), a schema of its own on PostgreSQL.
 */
export async function databaseForCli(dataDir: string): Promise<TestDatabase> {
  if (TEST_DATABASE_URL) return createTestDatabase();
  await pgliteDataDir(dataDir);
  return {
    databaseUrl: undefined,
    dataDir,
    open: () => openDatabase({ databaseUrl: undefined, dataDir }),
    drop: async () => undefined,
  };
}

export const RENTPAY_BIN = path.resolve('bin/rentpay.mjs');
const execFileAsync = promisify(execFile);

/** Runs the `rentpay` CLI as a user would; resolves with its exit code and output, whatever the code. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [RENTPAY_BIN, ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `rentpay` CLI to its end with exactly `env` (no time limit of its own: the machine may be busy);
 * `onStdout` sees the output so far as it comes, with the child (e.g. to signal it).
 */
export function runRentpay(
  args: string[],
  env: Record<string, string>,
  onStdout?: (stdout: string, child: ChildProcess) => void,
): Promise<CliRun> {
  const child = spawn(process.execPath, [RENTPAY_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    onStdout?.(stdout, child);
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
