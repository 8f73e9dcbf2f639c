import type { Command } from 'commander';
import { loadConfig } from '../../platform/config/config.ts';
import { openDatabase } from '../../platform/db/db.ts';
import { migrate } from '../../platform/db/migrate.ts';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and exit (serve and worker also do this at start)')
    .action(async () => {
      const cfg = loadConfig(process.env);
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
}
