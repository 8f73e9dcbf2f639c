import type { Command } from 'commander';
import { positiveInt } from '../option-parsers.ts';
import { jsonOutput, safe, table } from '../output.ts';

const BREAKS = {
  hash: 'its hash is not the hash of its content: the entry was changed after it was written',
  link: 'it does not name the hash of the entry before it: an entry before it was removed, changed or inserted',
  gap: 'its number skips: entries before it were removed',
  head: 'the chain ends before its recorded head: its newest entries were removed',
} as const;

/** `rentpay audit ...`: the audit log, read from the database (configuration from the environment). */
export function registerAuditCommands(program: Command): void {
  const audit = program
    .command('audit')
    .description('The audit log of changes to money, credentials and settings (reads the database directly)');

  audit
    .command('verify')
    .description(
      'Check every chain of the audit log from its first entry to its head; exit 1 naming the first broken entry',
    )
    .option('--json', 'print JSON instead of text')
    .action(async (options: { json?: boolean }) => {
      const { withDatabase } = await import('../database.ts');
      const { verifyAudit } = await import('../../audit/log.ts');
      const result = await withDatabase((db) => verifyAudit(db));
      if (options.json) {
        process.stdout.write(`${jsonOutput(result)}\n`);
      } else {
        for (const chain of result.chains) {
          process.stdout.write(safe`${chain.scope}: ${chain.entries} entries, head ${chain.head}\n`);
        }
        if (result.broken) {
          const { scope, reason } = result.broken;
          const where =
            'id' in result.broken ? `entry ${result.broken.id} (#${result.broken.seq})` : 'the head';
          process.stdout.write(safe`${scope}: BROKEN at ${where}: ${BREAKS[reason]}\n`);
        } else {
          process.stdout.write(`Every chain holds (${result.chains.length}).\n`);
        }
      }
      if (result.broken) process.exitCode = 1;
    });

  audit
    .command('list')
    .description("An integrator's audit entries (or the operator's own), newest first")
    .option('--integrator <id>', "the integrator's entries")
    .option('--operator', "the operator's own entries (payout runs, …)")
    .option('--limit <n>', 'entries per page', positiveInt, 20)
    .option('--starting-after <audit_entry_id>', 'the page after this entry')
    .option('--json', 'print JSON instead of text')
    .action(
      async (options: {
        integrator?: string;
        operator?: boolean;
        limit: number;
        startingAfter?: string;
        json?: boolean;
      }) => {
        const { CliError } = await import('../operator-client.ts');
        if ((options.integrator === undefined) === (options.operator === undefined)) {
          throw new CliError('Pass --integrator <id> or --operator.');
        }
        const { withDatabase } = await import('../database.ts');
        const { listAudit, OPERATOR_SCOPE } = await import('../../audit/log.ts');
        const { actorLabel, auditEntryView } = await import('../../audit/view.ts');
        const page = await withDatabase((db) =>
          listAudit(db, options.integrator ?? OPERATOR_SCOPE, {
            limit: Math.min(options.limit, 100),
            startingAfter: options.startingAfter,
          }),
        );
        const data = page.data.map(auditEntryView);
        if (options.json) {
          process.stdout.write(`${jsonOutput({ data, has_more: page.has_more })}\n`);
          return;
        }
        process.stdout.write(
          `${table(
            ['ID', 'WHEN', 'WHO', 'ACTION', 'TARGET'],
            data.map((entry) => [
              entry.audit_entry_id,
              entry.created_at,
              actorLabel(entry.actor),
              entry.action,
              entry.target.id,
            ]),
          )}\n`,
        );
        if (page.has_more) {
          process.stdout.write(`More: --starting-after ${data[data.length - 1]!.audit_entry_id}\n`);
        }
      },
    );
}
