import type { Command } from 'commander';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description(
      'Apply pending database migrations and exit (serve and worker also do this at start); needs only DATABASE_URL',
    )
    .action(async () => {
      const [{ loadDatabaseConfig }, { openDatabase }, { migrate }, { starting }] = await Promise.all([
        import('../../platform/config/config.ts'),
        import('../../platform/db/db.ts'),
        import('../../platform/db/migrate.ts'),
        import('../../platform/config/startup-errors.ts'),
      ]);
      const cfg = loadDatabaseConfig(process.env);
      const db = await starting(cfg, () =>
        openDatabase({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir, poolSize: 2 }),
      );
      try {
        const result = await starting(cfg, () => migrate(db));
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
