import type { Db } from '../platform/db/db.ts';

/**
 * Runs `work` on the database the environment names (DATABASE_URL, or the embedded one under DATA_DIR), for the
 * commands that read it directly; closes it after. A database not yet migrated is a clear error, not a stack trace.
 */
export async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const [{ loadDatabaseConfig }, { openDatabase }, { starting }, { CliError }] = await Promise.all([
    import('../platform/config/config.ts'),
    import('../platform/db/db.ts'),
    import('../platform/config/startup-errors.ts'),
    import('./operator-client.ts'),
  ]);
  const cfg = loadDatabaseConfig(process.env);
  const db = await starting(cfg, () =>
    openDatabase({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir, poolSize: 2 }),
  );
  try {
    return await work(db);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') {
      throw new CliError(
        'The database is not migrated to this version of rentpay: run rentpay migrate first.',
      );
    }
    throw error;
  } finally {
    await db.close();
  }
}
