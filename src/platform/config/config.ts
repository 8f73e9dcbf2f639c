import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type ServiceEnv = 'sandbox' | 'production';

export type PaymentProcessorName = 'sandbox' | 'stripe';

/** Stripe's keys and where to reach it (a local Stripe-compatible server in tests). */
export interface StripeConfig {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Default https://api.stripe.com. */
  apiBase: string;
  /** Stripe.js; default https://js.stripe.com/v3/. */
  jsUrl: string;
  /** The Apple Pay domain-association file Stripe gives for this domain (its contents), when configured. */
  applePayDomainAssociation?: string;
}

export interface Config {
  port: number;
  host: string;
  /** Unset: the embedded PGlite database under dataDir (sandbox only). */
  databaseUrl: string | undefined;
  /** DATABASE_POOL_SIZE: connections this process keeps to PostgreSQL at most. */
  databasePoolSize: number;
  /** Where PGlite keeps its files, and later stored documents. `memory://` keeps PGlite in memory. */
  dataDir: string;
  publicUrl: string;
  serviceEnv: ServiceEnv;
  redisUrl: string | undefined;
  operatorToken: string | undefined;
  /** Set: GET /metrics needs `Authorization: Bearer <metricsToken>`. Unset: /metrics is open (private networks only). */
  metricsToken: string | undefined;
  allowPrivateDocumentHosts: boolean;
  allowPrivateWebhookHosts: boolean;
  logLevel: string;
  paymentProcessor: PaymentProcessorName;
  /** Set when paymentProcessor is stripe. */
  stripe: StripeConfig | undefined;
  /** Where fetched documents are stored; default DATA_DIR/documents (a temp folder when DATA_DIR is memory://). */
  documentsDir: string;
  /**
   * DOCUMENT_ENCRYPTION_KEY (32 bytes, base64): stored documents are encrypted under it. Required in production; in
   * sandbox, when unset, one is generated and kept under DATA_DIR.
   */
  documentEncryptionKey: Buffer | undefined;
  /** DOCUMENT_ENCRYPTION_PREVIOUS_KEYS (comma-separated base64): keys rotated out, still read, never written. */
  documentEncryptionPreviousKeys: Buffer[];
  /** User session token and payment session lifetimes: 15 and 30 minutes by default. */
  userTokenTtlSeconds: number;
  sessionTtlSeconds: number;
  /** Grace for in-flight requests and jobs on shutdown. */
  shutdownTimeoutMs: number;
  workerPollIntervalMs: number;
  workerConcurrency: number;
  /** How many jobs of one integrator (webhook deliveries, document fetches) may run at once; the rest wait. */
  workerConcurrencyPerIntegrator: number;
  /** Finished (succeeded or failed) jobs are deleted this many days after they finished. */
  jobRetentionDays: number;
  /** The Client API's request limit per payment session: `burst` requests per window (a steady burst/window rate). */
  clientRateLimit: { burst: number; windowMs: number };
  /**
   * Which proxies in front of the service to believe about the client's address (X-Forwarded-For): false (none,
   * the default) or their addresses and CIDR ranges.
   */
  trustProxy: false | string[];
  /** Failed authentications per client address in a window, on every surface, before 429. */
  authFailureLimit: { max: number; windowMs: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

/** Every problem one read of the configuration found: one line each, so they can all be fixed before a restart. */
export class ConfigErrors extends ConfigError {
  constructor(readonly problems: ConfigError[]) {
    super(problems[0]!.variable, '');
    this.message = problems.map((problem) => problem.message).join('\n');
    this.name = 'ConfigErrors';
  }
}

/**
 * Runs each read, keeping its ConfigError instead of stopping at it; `done()` throws them all at once (one
 * ConfigError alone as itself).
 */
class Problems {
  readonly #found: ConfigError[] = [];

  read<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.#found.push(error);
      return fallback;
    }
  }

  add(variable: string, message: string): void {
    this.#found.push(new ConfigError(variable, message));
  }

  done(): void {
    if (this.#found.length === 1) throw this.#found[0];
    if (this.#found.length > 1) throw new ConfigErrors(this.#found);
  }
}

type Env = Record<string, string | undefined>;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function readBool(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return false;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw new ConfigError(name, `must be 1/true/yes/on or 0/false/no/off (got "${raw}")`);
}

function readUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL (${protocols.join(', ')}) (got "${redactUrl(raw)}")`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')} (got "${url.protocol}")`);
  }
  return raw;
}

/** Keeps passwords in connection strings out of error messages. */
function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

function readPaymentProcessor(env: Env, serviceEnv: ServiceEnv): PaymentProcessorName {
  const raw = env.PAYMENT_PROCESSOR?.trim() || (serviceEnv === 'sandbox' ? 'sandbox' : '');
  if (serviceEnv === 'production' && (raw === '' || raw === 'sandbox')) {
    throw new ConfigError(
      'PAYMENT_PROCESSOR',
      'must be "stripe" when SERVICE_ENV=production (the sandbox processor never runs in production)',
    );
  }
  if (raw !== 'sandbox' && raw !== 'stripe') {
    throw new ConfigError('PAYMENT_PROCESSOR', `must be "sandbox" or "stripe" (got "${raw}")`);
  }
  return raw;
}

/** A 32-byte key given in base64; undefined when unset. */
function readEncryptionKey(name: string, raw: string | undefined): Buffer | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError(
      name,
      'must be 32 bytes in base64 (44 characters), e.g. the output of "openssl rand -base64 32"',
    );
  }
  return key;
}

/** A Stripe key of the right kind for the environment: live keys in production, test keys in sandbox. */
function readStripeKey(env: Env, name: string, prefixes: string[], serviceEnv: ServiceEnv): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(name, 'is required when PAYMENT_PROCESSOR=stripe');
  const mode = serviceEnv === 'production' ? 'live' : 'test';
  const other = mode === 'live' ? 'test' : 'live';
  if (prefixes.some((prefix) => value.startsWith(`${prefix}_${other}_`))) {
    throw new ConfigError(
      name,
      `is a ${other} key; SERVICE_ENV=${serviceEnv} takes ${mode} keys (${prefixes.map((p) => `${p}_${mode}_`).join(' or ')})`,
    );
  }
  if (!prefixes.some((prefix) => value.startsWith(`${prefix}_${mode}_`))) {
    throw new ConfigError(name, `must start with ${prefixes.map((p) => `${p}_${mode}_`).join(' or ')}`);
  }
  return value;
}

function readStripe(env: Env, serviceEnv: ServiceEnv, problems: Problems): StripeConfig {
  const secretKey = problems.read(
    () => readStripeKey(env, 'STRIPE_SECRET_KEY', ['sk', 'rk'], serviceEnv),
    '',
  );
  const publishableKey = problems.read(
    () => readStripeKey(env, 'STRIPE_PUBLISHABLE_KEY', ['pk'], serviceEnv),
    '',
  );
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET?.trim() ?? '';
  if (!webhookSecret.startsWith('whsec_')) {
    problems.add('STRIPE_WEBHOOK_SECRET', 'is required when PAYMENT_PROCESSOR=stripe and starts with whsec_');
  }
  const url = (name: string) => problems.read(() => readUrl(env, name, ['http:', 'https:']), undefined);
  return {
    secretKey,
    publishableKey,
    webhookSecret,
    apiBase: url('STRIPE_API_BASE') ?? 'https://api.stripe.com',
    jsUrl: url('STRIPE_JS_URL') ?? 'https://js.stripe.com/v3/',
    ...problems.read(() => readApplePayDomainFile(env), {}),
  };
}

function readApplePayDomainFile(env: Env): { applePayDomainAssociation?: string } {
  const file = env.STRIPE_APPLE_PAY_DOMAIN_FILE?.trim();
  if (!file) return {};
  try {
    const contents = fs.readFileSync(file, 'utf8');
    if (contents.trim() === '') throw new Error('empty');
    return { applePayDomainAssociation: contents };
  } catch {
    throw new ConfigError(
      'STRIPE_APPLE_PAY_DOMAIN_FILE',
      `must name a readable, non-empty file (the domain-association file from Stripe's dashboard) (got "${file}")`,
    );
  }
}

/**
 * TRUST_PROXY: unset (the client is whoever connects), or a comma list of the proxies' addresses and CIDR ranges (or
 * proxy-addr's names loopback, linklocal, uniquelocal). Never "any": believing every X-Forwarded-For lets a client
 * choose its own address, and so its own rate limits.
 */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function readTrustProxy(env: Env): string[] | false {
  const value = env.TRUST_PROXY?.trim();
  if (!value) return false;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const maxBits = net.isIPv6(address) ? 128 : 32;
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (!PROXY_NAMES.includes(entry) && (rest.length > 0 || net.isIP(address) === 0 || !validBits)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be a comma list of the proxies' IP addresses and CIDR ranges, e.g. 10.0.0.0/8 (got "${entry}")`,
      );
    }
  }
  return entries;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function readServiceEnv(env: Env): ServiceEnv {
  const raw = env.SERVICE_ENV?.trim() || 'sandbox';
  if (raw !== 'sandbox' && raw !== 'production') {
    throw new ConfigError('SERVICE_ENV', `must be "sandbox" or "production" (got "${raw}")`);
  }
  return raw;
}

/** What opening the database takes: all `rentpay migrate` reads. */
export interface DatabaseConfig {
  serviceEnv: ServiceEnv;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  dataDir: string;
}

function readDatabase(
  env: Env,
  problems: Problems,
  serviceEnv: ServiceEnv,
): Omit<DatabaseConfig, 'serviceEnv'> {
  const databaseUrl = problems.read(
    () => readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    undefined,
  );
  if (serviceEnv === 'production' && !databaseUrl && !env.DATABASE_URL?.trim()) {
    problems.add(
      'DATABASE_URL',
      "is required in production: the postgres:// URL of the database every node shares (the embedded database keeps data on one machine's disk)",
    );
  }
  const dataDirRaw = env.DATA_DIR?.trim() || './data';
  return {
    databaseUrl,
    databasePoolSize: problems.read(() => readInt(env, 'DATABASE_POOL_SIZE', 20, 1, 1000), 20),
    dataDir: dataDirRaw.startsWith('memory://') ? dataDirRaw : path.resolve(dataDirRaw),
  };
}

/** The database settings alone, for `rentpay migrate` (a job with database rights needs nothing else). */
export function loadDatabaseConfig(env: Env = process.env): DatabaseConfig {
  const problems = new Problems();
  const serviceEnv = problems.read(() => readServiceEnv(env), 'sandbox');
  const database = readDatabase(env, problems, serviceEnv);
  problems.done();
  return { serviceEnv, ...database };
}

function readPublicUrl(env: Env, serviceEnv: ServiceEnv, host: string, port: number): string {
  const raw = readUrl(env, 'PUBLIC_URL', ['http:', 'https:']);
  if (serviceEnv === 'production') {
    if (raw === undefined) {
      throw new ConfigError(
        'PUBLIC_URL',
        'is required in production: the https:// address tenants, your platforms and Stripe reach rentpay at, e.g. https://pay.example.com',
      );
    }
    if (new URL(raw).protocol !== 'https:') {
      throw new ConfigError('PUBLIC_URL', `must be an https:// URL in production (got "${raw}")`);
    }
  }
  return (raw ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
}

function readOperatorToken(env: Env, serviceEnv: ServiceEnv): string | undefined {
  const token = env.OPERATOR_TOKEN?.trim() || undefined;
  if (token === undefined && serviceEnv === 'production') {
    throw new ConfigError(
      'OPERATOR_TOKEN',
      'is required in production (at least 24 characters, e.g. the output of "openssl rand -base64 32"): production never generates a secret',
    );
  }
  if (token !== undefined && token.length < 24) {
    throw new ConfigError('OPERATOR_TOKEN', 'must be at least 24 characters long');
  }
  return token;
}

function readMetricsToken(env: Env): string | undefined {
  const token = env.METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && !/^[\x21-\x7e]{24,}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 24 printable characters without spaces');
  }
  return token;
}

function readLogLevel(env: Env): string {
  const level = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
  }
  return level;
}

function readDocumentKeys(env: Env, serviceEnv: ServiceEnv, problems: Problems) {
  const documentEncryptionKey = problems.read(
    () => readEncryptionKey('DOCUMENT_ENCRYPTION_KEY', env.DOCUMENT_ENCRYPTION_KEY),
    undefined,
  );
  if (serviceEnv === 'production' && !env.DOCUMENT_ENCRYPTION_KEY?.trim()) {
    problems.add(
      'DOCUMENT_ENCRYPTION_KEY',
      'is required in production: 32 random bytes in base64 (e.g. the output of "openssl rand -base64 32"), the same on every node',
    );
  }
  const documentEncryptionPreviousKeys = problems.read(
    () =>
      (env.DOCUMENT_ENCRYPTION_PREVIOUS_KEYS ?? '')
        .split(',')
        .map((value) => value.trim())
        .filter((value) => value !== '')
        .map((value) => readEncryptionKey('DOCUMENT_ENCRYPTION_PREVIOUS_KEYS', value)!),
    [],
  );
  return { documentEncryptionKey, documentEncryptionPreviousKeys };
}

/**
 * Reads and checks every variable, and reports every problem at once (a ConfigErrors with a line each) rather than
 * one per start.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems = new Problems();
  const serviceEnv = problems.read(() => readServiceEnv(env), 'sandbox');
  const port = problems.read(() => readInt(env, 'PORT', 8080, 0, 65535), 8080);
  const host = env.HOST?.trim() || '127.0.0.1';
  const database = readDatabase(env, problems, serviceEnv);
  const publicUrl = problems.read(() => readPublicUrl(env, serviceEnv, host, port), '');
  const redisUrl = problems.read(() => readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']), undefined);
  const operatorToken = problems.read(() => readOperatorToken(env, serviceEnv), undefined);
  const metricsToken = problems.read(() => readMetricsToken(env), undefined);
  const logLevel = problems.read(() => readLogLevel(env), 'info');
  const allowPrivateDocumentHosts = problems.read(() => readBool(env, 'ALLOW_PRIVATE_DOCUMENT_HOSTS'), false);
  const allowPrivateWebhookHosts = problems.read(() => readBool(env, 'ALLOW_PRIVATE_WEBHOOK_HOSTS'), false);
  if (serviceEnv === 'production') {
    for (const [name, on] of [
      ['ALLOW_PRIVATE_DOCUMENT_HOSTS', allowPrivateDocumentHosts],
      ['ALLOW_PRIVATE_WEBHOOK_HOSTS', allowPrivateWebhookHosts],
    ] as const) {
      if (on) problems.add(name, 'is for local testing only and cannot be set in production');
    }
  }
  const paymentProcessor = problems.read(() => readPaymentProcessor(env, serviceEnv), 'sandbox');
  const stripe =
    env.PAYMENT_PROCESSOR?.trim() === 'stripe' ? readStripe(env, serviceEnv, problems) : undefined;
  const documentKeys = readDocumentKeys(env, serviceEnv, problems);
  const userTokenTtlSeconds = problems.read(
    () => readInt(env, 'USER_TOKEN_TTL_SECONDS', 900, 60, 86_400),
    900,
  );
  const sessionTtlSeconds = problems.read(() => readInt(env, 'SESSION_TTL_SECONDS', 1800, 60, 86_400), 1800);
  if (userTokenTtlSeconds > sessionTtlSeconds) {
    problems.add(
      'USER_TOKEN_TTL_SECONDS',
      `must not be longer than SESSION_TTL_SECONDS (${userTokenTtlSeconds} > ${sessionTtlSeconds})`,
    );
  }
  const int = (name: string, fallback: number, min: number, max: number) =>
    problems.read(() => readInt(env, name, fallback, min, max), fallback);
  const config: Config = {
    port,
    host,
    ...database,
    publicUrl,
    serviceEnv,
    redisUrl,
    operatorToken,
    metricsToken,
    allowPrivateDocumentHosts,
    allowPrivateWebhookHosts,
    logLevel,
    paymentProcessor,
    stripe,
    ...documentKeys,
    documentsDir: env.DOCUMENTS_DIR?.trim()
      ? path.resolve(env.DOCUMENTS_DIR.trim())
      : database.dataDir.startsWith('memory://')
        ? path.join(os.tmpdir(), `rentpay-documents-${process.pid}`)
        : path.join(database.dataDir, 'documents'),
    userTokenTtlSeconds,
    sessionTtlSeconds,
    // Above a webhook attempt's 15 s limit, so a stop lets the attempt in hand finish and record its outcome.
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 20_000, 0, 600_000),
    workerPollIntervalMs: int('WORKER_POLL_INTERVAL_MS', 500, 10, 60_000),
    // Most jobs wait on someone else's server (a webhook endpoint may take 15 s), not on our CPU: with 8, eight
    // slow endpoints held every slot and a 20,000-event backlog drained at 633/s instead of 1,083/s.
    workerConcurrency: int('WORKER_CONCURRENCY', 32, 1, 256),
    // Half the default slots: one integrator's endpoint that never answers holds at most that many of them.
    workerConcurrencyPerIntegrator: int('WORKER_CONCURRENCY_PER_INTEGRATOR', 16, 1, 256),
    jobRetentionDays: int('JOB_RETENTION_DAYS', 7, 1, 3_650),
    // 20 per second sustained: a page polls and retries, but a script trying cards does far more.
    clientRateLimit: { burst: 40, windowMs: 2_000 },
    authFailureLimit: { max: 20, windowMs: 60_000 },
    trustProxy: problems.read(() => readTrustProxy(env), false),
  };
  problems.done();
  return config;
}

/** Settings that run but are probably a mistake: printed as warnings at start. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const loopback = config.host === 'localhost' || config.host === '::1' || config.host.startsWith('127.');
  if (config.serviceEnv === 'production' && loopback) {
    warnings.push(
      `HOST=${config.host} listens on this machine's loopback interface only: a load balancer or proxy on another machine cannot reach it (set HOST=0.0.0.0)`,
    );
  }
  return warnings;
}
