import { randomUUID } from 'node:crypto';
import { Command, Option } from 'commander';
import { type Config, ConfigError, loadConfig } from '../platform/config/config.ts';
import { openDatabase } from '../platform/db/db.ts';
import { migrate } from '../platform/db/migrate.ts';
import { type Running, runWorker, serve } from '../runtime.ts';
import { registerListenCommand } from './listen.ts';
import { CliError, OperatorClient } from './operator-client.ts';
import { registerWebhookCommands } from './webhooks.ts';

const program = new Command();
program
  .name('rentpay')
  .description(
    'rentpay: rent payments for property platforms.\n\n' +
      'Server commands (serve, worker, migrate) read their configuration from the environment; see the README.\n' +
      'Operator commands (integrator ..., payments ...) call the Operator API of a running deployment.\n' +
      'listen forwards your integration’s events to a local URL (server token).',
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
    if (cfg.serviceEnv === 'sandbox') {
      lines.push(
        `  Demo platform: ${baseUrl}/demo (the hosted page and the SDK side by side, and the webhooks it receives${cfg.allowPrivateWebhookHosts ? '' : '; on a local address those need ALLOW_PRIVATE_WEBHOOK_HOSTS=1'})`,
        `  Your webhooks on this machine: npx rentpay listen --forward-to http://localhost:3000/webhooks --url ${baseUrl} --token <server token>`,
      );
    }
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
  status: string;
  webhook_url: string | null;
  allowed_origins: string[];
  fees: Record<string, { percent: string; fixed: string }>;
  features?: Record<string, boolean>;
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

const FEATURE_NAMES = ['apms', 'wallets', 'recurring', 'savedCards'];

/** `--feature NAME=on|off` (repeatable) as the `features` setting; features not named are left out. */
function parseFeatures(values: string[] | undefined): Record<string, boolean> | undefined {
  if (!values) return undefined;
  const features: Record<string, boolean> = {};
  for (const value of values) {
    const match = /^([A-Za-z]+)=(on|off)$/.exec(value);
    if (!match || !FEATURE_NAMES.includes(match[1]!)) {
      throw new CliError(
        `--feature "${value}": write NAME=on or NAME=off, NAME one of ${FEATURE_NAMES.join(', ')}`,
      );
    }
    features[match[1]!] = match[2] === 'on';
  }
  return features;
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
    `status                 ${integrator.status}`,
    `webhook_url            ${integrator.webhook_url ?? '(none)'}`,
    `allowed_origins        ${integrator.allowed_origins.join(' ') || '(none)'}`,
    `fees                   ${fees || '(none)'}`,
    `features               ${
      Object.entries(integrator.features ?? {})
        .map(([name, on]) => `${name} ${on ? 'on' : 'off'}`)
        .join(', ') || '(all on)'
    }`,
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
    .option(
      '--feature <name=on|off>',
      `turn a feature of the page and SDK on or off: ${FEATURE_NAMES.join(', ')}; all on by default (repeatable)`,
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
    features: parseFeatures(options.feature),
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
    .option(
      '--feature <name=on|off>',
      `turns one feature on or off, leaving the others as they are: ${FEATURE_NAMES.join(', ')} (repeatable)`,
      collect,
    )
    .option('--rate-limit <per-second>', 'requests per second sustained', positiveInt)
    .option('--burst <requests>', 'burst size', positiveInt),
).action(async (integratorId: string, options) => {
  const body: Record<string, unknown> = {
    name: options.name,
    allowed_origins: options.allowedOrigin,
    fees: parseFees(options.fee),
    features: parseFeatures(options.feature),
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

withOperatorOptions(
  integrator
    .command('reissue-token <integrator_id>')
    .description(
      'Ends every server token of the integrator now (a leaked or lost token) and prints the new one, shown once',
    ),
).action(async (integratorId: string, options) => {
  const { server_token } = await client(options).request<{ server_token: string }>(
    'POST',
    `/integrators/${encodeURIComponent(integratorId)}/tokens/reissue`,
  );
  if (options.json) process.stdout.write(`${JSON.stringify({ server_token })}\n`);
  else
    process.stdout.write(
      `server_token           ${server_token}   (shown once; every older token has ended)\n`,
    );
});

for (const [action, description] of [
  [
    'suspend',
    'Suspend an integrator: its server and user session tokens get 403 integrator_suspended; schedules keep charging',
  ],
  ['unsuspend', 'Lift a suspension: the integrator’s valid tokens work again'],
] as const) {
  withOperatorOptions(integrator.command(`${action} <integrator_id>`).description(description)).action(
    async (integratorId: string, options) => {
      printIntegrator(
        await client(options).request<IntegratorOut>(
          'POST',
          `/integrators/${encodeURIComponent(integratorId)}/${action}`,
        ),
        options.json,
      );
    },
  );
}

interface PaymentOut {
  payment_id: string;
  integrator_id: string;
  status: string;
  pure_amount: string;
  fee: string;
  amount: string;
  refunded: string;
  currency: string;
  method: string;
  card: { brand: string; last4: string; exp_month: number; exp_year: number } | null;
  reference: string;
  session_id: string;
  schedule_id: string | null;
  installment_number: number | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

interface RefundOut {
  refund_id: string;
  payment_id: string;
  amount: string;
  status: string;
  created_at: string;
  payment: Omit<PaymentOut, 'integrator_id' | 'refunded'>;
}

const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'canceled'];

function paymentStatus(value: string): string {
  if (!PAYMENT_STATUSES.includes(value)) {
    throw new CliError(`--status "${value}": choose one of ${PAYMENT_STATUSES.join(', ')}`);
  }
  return value;
}

function pence(amount: string): number {
  const [pounds = '0', fraction = '0'] = amount.split('.');
  return Number(pounds) * 100 + Number(fraction.padEnd(2, '0'));
}

function pounds(value: number): string {
  return `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;
}

/** Columns padded to their widest cell; the last column is not padded. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function printPayment(payment: PaymentOut, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(payment)}\n`);
    return;
  }
  const card = payment.card
    ? ` (${payment.card.brand} ending ${payment.card.last4}, expires ${String(payment.card.exp_month).padStart(2, '0')}/${payment.card.exp_year})`
    : '';
  const left = pence(payment.amount) - pence(payment.refunded);
  const lines = [
    `payment_id             ${payment.payment_id}`,
    `status                 ${payment.status}`,
    `amount                 ${payment.amount} ${payment.currency} (${payment.pure_amount} + fee ${payment.fee})`,
    `refunded               ${payment.refunded}${payment.status === 'succeeded' ? ` (${pounds(left)} left to refund)` : ''}`,
    `method                 ${payment.method}${card}`,
    `reference              ${payment.reference}`,
    `integrator_id          ${payment.integrator_id}`,
    `session_id             ${payment.session_id}`,
  ];
  if (payment.schedule_id) {
    lines.push(
      `schedule               ${payment.schedule_id}, installment ${payment.installment_number ?? '-'}`,
    );
  }
  if (payment.failure_code) {
    lines.push(`failure                ${payment.failure_code}: ${payment.failure_message ?? ''}`);
  }
  lines.push(`created_at             ${payment.created_at}`, `updated_at             ${payment.updated_at}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const payments = program.command('payments').description('List, show and refund payments');

withOperatorOptions(
  payments
    .command('list')
    .description('List payments, newest first')
    .option('--integrator <integrator_id>', 'only this integrator’s payments')
    .option(
      '--status <status>',
      `only payments in this status: ${PAYMENT_STATUSES.join(', ')}`,
      paymentStatus,
    )
    .option('--session <session_id>', 'only the payments of this session')
    .option('--limit <n>', 'at most this many, 1 to 100 (default 20)', positiveInt)
    .option('--starting-after <payment_id>', 'the page after this payment (for paging through older ones)'),
).action(async (options) => {
  const query = new URLSearchParams();
  if (options.integrator) query.set('integrator_id', options.integrator);
  if (options.status) query.set('status', options.status);
  if (options.session) query.set('session_id', options.session);
  if (options.limit) query.set('limit', String(options.limit));
  if (options.startingAfter) query.set('starting_after', options.startingAfter);
  const path = query.size > 0 ? `/payments?${query}` : '/payments';
  const page = await client(options).request<{ data: PaymentOut[]; has_more: boolean }>('GET', path);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(page)}\n`);
    return;
  }
  if (page.data.length === 0) {
    process.stdout.write('No payments.\n');
    return;
  }
  const rows = page.data.map((p) => [
    p.payment_id,
    p.status,
    p.amount,
    p.refunded,
    p.method,
    p.created_at,
    p.integrator_id,
  ]);
  const lines = [
    table(['PAYMENT_ID', 'STATUS', 'AMOUNT', 'REFUNDED', 'METHOD', 'CREATED_AT', 'INTEGRATOR'], rows),
  ];
  if (page.has_more) {
    lines.push('', `More: run again with --starting-after ${page.data.at(-1)!.payment_id}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
});

withOperatorOptions(payments.command('show <payment_id>').description('Show one payment')).action(
  async (paymentId: string, options) => {
    printPayment(
      await client(options).request<PaymentOut>('GET', `/payments/${encodeURIComponent(paymentId)}`),
      options.json,
    );
  },
);

withOperatorOptions(
  payments
    .command('refund <payment_id>')
    .description('Refund a succeeded payment: everything not refunded yet, or --amount of it')
    .option('--amount <decimal>', 'pounds to refund, e.g. 100.00 (default: all that is left)')
    .option(
      '--idempotency-key <key>',
      'the same key again is the same refund, never a second one (default: a new key, used for this command’s own retries)',
    ),
).action(async (paymentId: string, options) => {
  const api = client(options);
  const path = `/payments/${encodeURIComponent(paymentId)}`;
  const key: string = options.idempotencyKey ?? `cli_${randomUUID()}`;
  let refund: RefundOut;
  try {
    refund = await api.request<RefundOut>(
      'POST',
      `${path}/refunds`,
      options.amount === undefined ? {} : { amount: options.amount },
      { headers: { 'idempotency-key': key }, retries: 2 },
    );
  } catch (error) {
    // Whether the refund was made is unknown: the same key finds it instead of refunding twice.
    if (error instanceof CliError && error.message.startsWith('Cannot reach')) {
      throw new CliError(`${error.message}\nTo retry safely, run again with --idempotency-key ${key}`);
    }
    throw error;
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(refund)}\n`);
    return;
  }
  const lines = [
    `refund_id              ${refund.refund_id}`,
    `payment_id             ${refund.payment_id}`,
    `amount                 ${refund.amount} ${refund.payment.currency}`,
    `status                 ${refund.status}${refund.status === 'pending' ? ' (the processor has not answered yet; it is finished in the background: see payments show)' : ''}`,
    `created_at             ${refund.created_at}`,
    `idempotency_key        ${key}`,
  ];
  // The refund is made (or pending); the totals are a courtesy and their absence is not a failure.
  try {
    const payment = await api.request<PaymentOut>('GET', path);
    const left = pence(payment.amount) - pence(payment.refunded);
    lines.push(
      `payment                ${payment.amount} ${payment.currency}, refunded ${payment.refunded}, ${pounds(left)} left`,
    );
  } catch {
    lines.push(`payment                ${refund.payment.amount} ${refund.payment.currency}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
});

registerWebhookCommands(program, { withOperatorOptions, client, table });
registerListenCommand(program);

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
