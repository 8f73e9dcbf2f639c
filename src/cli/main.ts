import { Command, Option } from 'commander';
import { type Config, ConfigError, loadConfig } from '../platform/config/config.ts';
import { openDatabase } from '../platform/db/db.ts';
import { migrate } from '../platform/db/migrate.ts';
import { type Running, runWorker, serve } from '../runtime.ts';
import { CliError, OperatorClient } from './operator-client.ts';

const program = new Command();
program
  .name('rentpay')
  .description(
    'rentpay: rent payments for property platforms.\n\n' +
      'Server commands (serve, worker, migrate) read their configuration from the environment; see the README.\n' +
      'Operator commands (integrator ...) call the Operator API of a running deployment.',
  )
  .showHelpAfterError();

function withOperatorOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--url <url>', 'base URL of the deployment')
        .env('RENTPAY_URL')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(new Option('--token <token>', 'operator token').env('RENTPAY_OPERATOR_TOKEN'))
    .option('--json', 'print JSON instead of text');
}

function client(options: { url: string; token?: string }): OperatorClient {
  return new OperatorClient(options.url, options.token);
}

function config(): Config {
  return loadConfig(process.env);
}

function holdUntilSignal(running: Running, timeoutMs: number): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stderr.write(`rentpay: ${signal} received, finishing in-flight work...\n`);
    setTimeout(() => {
      process.stderr.write(`rentpay: still busy after SHUTDOWN_TIMEOUT_MS=${timeoutMs}; exiting anyway\n`);
      process.exit(1);
    }, timeoutMs).unref();
    running.stop().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`rentpay: error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

program
  .command('serve')
  .description('Run the HTTP service (and the job worker, unless --no-worker) until stopped')
  .option('--no-worker', 'do not run background jobs in this process (run `rentpay worker` elsewhere)')
  .action(async (options: { worker: boolean }) => {
    const cfg = config();
    const running = await serve(cfg, options.worker);
    holdUntilSignal(running, cfg.shutdownTimeoutMs);
    const database = cfg.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${cfg.dataDir}`;
    const address = running.app?.server.address();
    const port = address && typeof address === 'object' ? address.port : cfg.port;
    // PORT=0 picks a free port: the configured public URL cannot know it.
    const baseUrl = cfg.port === 0 ? `http://${cfg.host}:${port}` : cfg.publicUrl;
    const lines = [
      '',
      `rentpay is listening on http://${cfg.host}:${port} (${cfg.serviceEnv}; database: ${database}; worker: ${options.worker ? 'in process' : 'off'})`,
      `  API reference: ${baseUrl}/docs`,
    ];
    if (running.secrets.operatorToken) {
      lines.push(
        '',
        'Operator token (shown once; store it, e.g. export RENTPAY_OPERATOR_TOKEN=...):',
        `  ${running.secrets.operatorToken}`,
      );
    }
    if (running.secrets.demo) {
      lines.push(
        '',
        `Demo integrator ${running.secrets.demo.integratorId}, server token (shown once):`,
        `  ${running.secrets.demo.serverToken}`,
        '',
        'Try it:',
        `  curl -H "Authorization: Token ${running.secrets.demo.serverToken}" ${baseUrl}/api/third-party/integrator/`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  });

program
  .command('worker')
  .description('Run background jobs only (webhooks, documents, schedules, token expiry) until stopped')
  .action(async () => {
    const cfg = config();
    holdUntilSignal(await runWorker(cfg), cfg.shutdownTimeoutMs);
  });

program
  .command('migrate')
  .description('Apply pending database migrations and exit (serve and worker also do this at start)')
  .action(async () => {
    const cfg = config();
    const db = await openDatabase({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
    try {
      const result = await migrate(db);
      process.stdout.write(
        result.applied.length === 0
          ? `Database is up to date (${result.alreadyApplied.length} migrations).\n`
          : `Applied ${result.applied.length} migration(s): ${result.applied.join(', ')}\n`,
      );
    } finally {
      await db.close();
    }
  });

interface IntegratorOut {
  integrator_id: string;
  name: string;
  environment: string;
  webhook_url: string | null;
  allowed_origins: string[];
  fees: Record<string, { percent: string; fixed: string }>;
  rate_limit_per_second: number;
  rate_limit_burst: number;
  server_token?: string;
  webhook_secret?: string;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parseFees(
  values: string[] | undefined,
): Record<string, { percent: string; fixed: string }> | undefined {
  if (!values) return undefined;
  const fees: Record<string, { percent: string; fixed: string }> = {};
  for (const value of values) {
    const match = /^([a-z_]+)=([\d.]+)%(?:\+([\d.]+))?$/.exec(value);
    if (!match) throw new CliError(`--fee "${value}": write METHOD=PERCENT%+FIXED, e.g. card=1.4%+0.20`);
    fees[match[1]!] = { percent: match[2]!, fixed: match[3] ?? '0' };
  }
  return fees;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`"${value}" is not a positive whole number`);
  return n;
}

function printIntegrator(integrator: IntegratorOut, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(integrator)}\n`);
    return;
  }
  const fees = Object.entries(integrator.fees)
    .map(([method, fee]) => `${method} ${fee.percent}% + £${fee.fixed}`)
    .join(', ');
  const lines = [
    `integrator_id          ${integrator.integrator_id}`,
    `name                   ${integrator.name}`,
    `environment            ${integrator.environment}`,
    `webhook_url            ${integrator.webhook_url ?? '(none)'}`,
    `allowed_origins        ${integrator.allowed_origins.join(' ') || '(none)'}`,
    `fees                   ${fees || '(none)'}`,
    `rate limit             ${integrator.rate_limit_per_second}/s, burst ${integrator.rate_limit_burst}`,
  ];
  if (integrator.server_token) lines.push(`server_token           ${integrator.server_token}   (shown once)`);
  if (integrator.webhook_secret) lines.push(`webhook_secret         ${integrator.webhook_secret}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const integrator = program
  .command('integrator')
  .description('Create, change and list integrators (platforms)');

withOperatorOptions(
  integrator
    .command('create')
    .description('Create an integrator; prints its integrator_id, server_token and webhook_secret')
    .requiredOption('--name <name>', 'the platform’s name')
    .option('--webhook-url <url>', 'where webhooks are delivered')
    .option(
      '--allowed-origin <origin>',
      'origin allowed to frame the page / host the SDK (repeatable)',
      collect,
    )
    .option(
      '--fee <method=percent%+fixed>',
      'surcharge for a payment method, e.g. card=1.4%+0.20 (repeatable)',
      collect,
    )
    .option('--rate-limit <per-second>', 'requests per second sustained (default 100)', positiveInt)
    .option('--burst <requests>', 'burst size (default 200)', positiveInt),
).action(async (options) => {
  const created = await client(options).request<IntegratorOut>('POST', '/integrators', {
    name: options.name,
    webhook_url: options.webhookUrl,
    allowed_origins: options.allowedOrigin,
    fees: parseFees(options.fee),
    rate_limit_per_second: options.rateLimit,
    rate_limit_burst: options.burst,
  });
  printIntegrator(created, options.json);
});

withOperatorOptions(
  integrator
    .command('update <integrator_id>')
    .description('Change an integrator’s settings; options not given are left as they are')
    .option('--name <name>', 'the platform’s name')
    .option('--webhook-url <url>', 'where webhooks are delivered')
    .option('--no-webhook-url', 'remove the webhook URL')
    .option('--allowed-origin <origin>', 'replaces the allowed origins (repeatable)', collect)
    .option('--fee <method=percent%+fixed>', 'replaces the fees (repeatable)', collect)
    .option('--rate-limit <per-second>', 'requests per second sustained', positiveInt)
    .option('--burst <requests>', 'burst size', positiveInt),
).action(async (integratorId: string, options) => {
  const body: Record<string, unknown> = {
    name: options.name,
    allowed_origins: options.allowedOrigin,
    fees: parseFees(options.fee),
    rate_limit_per_second: options.rateLimit,
    rate_limit_burst: options.burst,
  };
  if (options.webhookUrl === false) body.webhook_url = null;
  else if (typeof options.webhookUrl === 'string') body.webhook_url = options.webhookUrl;
  const updated = await client(options).request<IntegratorOut>(
    'PATCH',
    `/integrators/${encodeURIComponent(integratorId)}`,
    body,
  );
  printIntegrator(updated, options.json);
});

withOperatorOptions(integrator.command('list').description('List every integrator')).action(
  async (options) => {
    const { data } = await client(options).request<{ data: IntegratorOut[] }>('GET', '/integrators');
    if (options.json) {
      process.stdout.write(`${JSON.stringify(data)}\n`);
      return;
    }
    if (data.length === 0) process.stdout.write('No integrators.\n');
    for (const item of data) {
      process.stdout.write(`${item.integrator_id}  ${item.name}  ${item.webhook_url ?? '(no webhook)'}\n`);
    }
  },
);

withOperatorOptions(integrator.command('show <integrator_id>').description('Show one integrator')).action(
  async (integratorId: string, options) => {
    printIntegrator(
      await client(options).request<IntegratorOut>('GET', `/integrators/${encodeURIComponent(integratorId)}`),
      options.json,
    );
  },
);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError || error instanceof CliError) {
    process.stderr.write(`rentpay: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `rentpay: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
