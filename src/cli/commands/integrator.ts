import type { Command } from 'commander';
import { CliError, operatorClient, withOperatorOptions } from '../operator-client.ts';
import { collect, positiveInt } from '../option-parsers.ts';
import { jsonOutput, safe } from '../output.ts';

interface IntegratorOut {
  integrator_id: string;
  name: string;
  environment: string;
  status: string;
  webhook_url: string | null;
  allowed_origins: string[];
  fees: Record<string, { percent: string; fixed: string }>;
  business_lets?: boolean;
  features?: Record<string, boolean>;
  rate_limit_per_second: number;
  rate_limit_burst: number;
  reminder_days_before?: number | null;
  server_token?: string;
  webhook_secret?: string;
}

function parseFees(
  values: string[] | undefined,
): Record<string, { percent: string; fixed: string }> | undefined {
  if (!values) return undefined;
  const fees: Record<string, { percent: string; fixed: string }> = {};
  for (const value of values) {
    const match = /^([a-z_]+)=([\d.]+)%(?:\+([\d.]+))?$/.exec(value);
    if (!match) throw new CliError(safe`--fee "${value}": write METHOD=PERCENT%+FIXED, e.g. card=1.4%+0.20`);
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
        safe`--feature "${value}": write NAME=on or NAME=off, NAME one of ${FEATURE_NAMES.join(', ')}`,
      );
    }
    features[match[1]!] = match[2] === 'on';
  }
  return features;
}

function printIntegrator(integrator: IntegratorOut, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${jsonOutput(integrator)}\n`);
    return;
  }
  const fees = Object.entries(integrator.fees)
    .map(([method, fee]) => `${method} ${fee.percent}% + £${fee.fixed}`)
    .join(', ');
  const lines = [
    safe`integrator_id          ${integrator.integrator_id}`,
    safe`name                   ${integrator.name}`,
    safe`environment            ${integrator.environment}`,
    safe`status                 ${integrator.status}`,
    safe`webhook_url            ${integrator.webhook_url ?? '(none)'}`,
    safe`allowed_origins        ${integrator.allowed_origins.join(' ') || '(none)'}`,
    safe`fees                   ${fees || '(none)'}`,
    safe`business_lets          ${integrator.business_lets ? 'yes (tenants are businesses)' : 'no'}`,
    safe`features               ${
      Object.entries(integrator.features ?? {})
        .map(([name, on]) => `${name} ${on ? 'on' : 'off'}`)
        .join(', ') || '(all on)'
    }`,
    safe`rate limit             ${integrator.rate_limit_per_second}/s, burst ${integrator.rate_limit_burst}`,
    safe`rent reminders         ${
      integrator.reminder_days_before
        ? `${integrator.reminder_days_before} days before a due date, 1 and 7 days after`
        : 'off'
    }`,
  ];
  if (integrator.server_token)
    lines.push(safe`server_token           ${integrator.server_token}   (shown once)`);
  if (integrator.webhook_secret) lines.push(safe`webhook_secret         ${integrator.webhook_secret}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `rentpay integrator ...`: create, change, list, show, reissue a token, suspend and unsuspend. */
export function registerIntegratorCommands(program: Command): void {
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
        '--business-lets',
        'record that the platform’s tenants are businesses, not consumers (production refuses fees without it)',
      )
      .option(
        '--feature <name=on|off>',
        `turn a feature of the page and SDK on or off: ${FEATURE_NAMES.join(', ')}; all on by default (repeatable)`,
        collect,
      )
      .option('--rate-limit <per-second>', 'requests per second sustained (default 100)', positiveInt)
      .option('--burst <requests>', 'burst size (default 200)', positiveInt)
      .option(
        '--reminder-days-before <days>',
        'send rent_due_soon this many days (1 to 90) before unpaid rent falls due, and rent_overdue after (default: no reminders)',
        positiveInt,
      ),
  ).action(async (options) => {
    const created = await operatorClient(options).request<IntegratorOut>('POST', '/integrators', {
      name: options.name,
      webhook_url: options.webhookUrl,
      allowed_origins: options.allowedOrigin,
      fees: parseFees(options.fee),
      business_lets: options.businessLets,
      features: parseFeatures(options.feature),
      rate_limit_per_second: options.rateLimit,
      rate_limit_burst: options.burst,
      reminder_days_before: options.reminderDaysBefore,
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
      .option('--business-lets', 'record that the platform’s tenants are businesses, not consumers')
      .option('--no-business-lets', 'withdraw that record (production refuses it while any fee is not 0)')
      .option(
        '--feature <name=on|off>',
        `turns one feature on or off, leaving the others as they are: ${FEATURE_NAMES.join(', ')} (repeatable)`,
        collect,
      )
      .option('--rate-limit <per-second>', 'requests per second sustained', positiveInt)
      .option('--burst <requests>', 'burst size', positiveInt)
      .option(
        '--reminder-days-before <days>',
        'rent reminders: days (1 to 90) before a due date',
        positiveInt,
      )
      .option('--no-reminders', 'send no rent reminders'),
  ).action(async (integratorId: string, options) => {
    const body: Record<string, unknown> = {
      name: options.name,
      allowed_origins: options.allowedOrigin,
      fees: parseFees(options.fee),
      business_lets: options.businessLets,
      features: parseFeatures(options.feature),
      rate_limit_per_second: options.rateLimit,
      rate_limit_burst: options.burst,
    };
    if (options.reminders === false) body.reminder_days_before = null;
    else if (options.reminderDaysBefore !== undefined) body.reminder_days_before = options.reminderDaysBefore;
    if (options.webhookUrl === false) body.webhook_url = null;
    else if (typeof options.webhookUrl === 'string') body.webhook_url = options.webhookUrl;
    const updated = await operatorClient(options).request<IntegratorOut>(
      'PATCH',
      `/integrators/${encodeURIComponent(integratorId)}`,
      body,
    );
    printIntegrator(updated, options.json);
  });

  withOperatorOptions(integrator.command('list').description('List every integrator')).action(
    async (options) => {
      const { data } = await operatorClient(options).request<{ data: IntegratorOut[] }>(
        'GET',
        '/integrators',
      );
      if (options.json) {
        process.stdout.write(`${jsonOutput(data)}\n`);
        return;
      }
      if (data.length === 0) process.stdout.write('No integrators.\n');
      for (const item of data) {
        process.stdout.write(
          `${safe`${item.integrator_id}  ${item.name}  ${item.webhook_url ?? '(no webhook)'}`}\n`,
        );
      }
    },
  );

  withOperatorOptions(integrator.command('show <integrator_id>').description('Show one integrator')).action(
    async (integratorId: string, options) => {
      printIntegrator(
        await operatorClient(options).request<IntegratorOut>(
          'GET',
          `/integrators/${encodeURIComponent(integratorId)}`,
        ),
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
    const { server_token } = await operatorClient(options).request<{ server_token: string }>(
      'POST',
      `/integrators/${encodeURIComponent(integratorId)}/tokens/reissue`,
    );
    if (options.json) process.stdout.write(`${jsonOutput({ server_token })}\n`);
    else
      process.stdout.write(
        safe`server_token           ${server_token}   (shown once; every older token has ended)\n`,
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
          await operatorClient(options).request<IntegratorOut>(
            'POST',
            `/integrators/${encodeURIComponent(integratorId)}/${action}`,
          ),
          options.json,
        );
      },
    );
  }
}
