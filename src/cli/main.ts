import { Command } from 'commander';
import { ConfigError } from '../platform/config/config.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { registerAuditCommands } from './commands/audit.ts';
import { registerDocumentCommands } from './commands/documents.ts';
import { registerIntegratorCommands } from './commands/integrator.ts';
import { registerListenCommand } from './commands/listen.ts';
import { registerMigrateCommand } from './commands/migrate.ts';
import { registerPaymentCommands } from './commands/payments.ts';
import { registerPayoutCommands } from './commands/payouts.ts';
import { registerServeCommands } from './commands/serve.ts';
import { registerSmokeCommand } from './commands/smoke.ts';
import { registerUserCommands } from './commands/users.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';
import { CliError } from './operator-client.ts';
import { printableLines } from './output.ts';

const program = new Command();
program
  .name('rentpay')
  .description(
    'rentpay: rent payments for property platforms.\n\n' +
      'Server commands (serve, worker, migrate) read their configuration from the environment; see docs/configuration.md.\n' +
      'Operator commands (integrator ..., payments ...) call the Operator API of a running deployment.\n' +
      'listen forwards your integration’s events to a local URL (server token).',
  )
  .showHelpAfterError()
  // Commander's own errors repeat what was typed (an unknown option, a bad argument): escaped like any output.
  // Set before the commands are added, which copy it.
  .configureOutput({ outputError: (text, write) => write(printableLines(text)) });

// Registration order is the order `rentpay --help` lists the commands in.
registerServeCommands(program);
registerAuditCommands(program);
registerUserCommands(program);
registerMigrateCommand(program);
registerDocumentCommands(program);
registerIntegratorCommands(program);
registerPaymentCommands(program);
registerPayoutCommands(program);
registerWebhookCommands(program);
registerListenCommand(program);
registerSmokeCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError) {
    // Every problem on a line of its own, each naming its variable.
    for (const line of error.message.split('\n')) process.stderr.write(`rentpay: ${printableLines(line)}\n`);
    process.exit(2);
  }
  if (error instanceof CliError || error instanceof ServiceError) {
    process.stderr.write(`rentpay: ${printableLines(error.message)}\n`);
    process.exit(2);
  }
  if (error instanceof FieldValidationError) {
    for (const [field, messages] of Object.entries(error.fields)) {
      process.stderr.write(`rentpay: --${field.replace(/_/g, '-')}: ${printableLines(messages.join(' '))}\n`);
    }
    process.exit(2);
  }
  process.stderr.write(
    `rentpay: ${printableLines(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
  );
  process.exit(1);
}
