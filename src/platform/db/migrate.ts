import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../migrations',
);

/** Arbitrary but fixed: every rentpay process takes this advisory lock before migrating. */
const MIGRATION_LOCK_KEY = 7_351_001;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

/**
 * Applies every migrations/*.sql not yet recorded, in name order, each in its own transaction.
 * Safe to run twice and from several processes at once: they queue on one advisory lock and the
 * later ones find nothing left to do.
 */
export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<MigrationResult> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    .sort();
  return db.withExclusiveLock(MIGRATION_LOCK_KEY, async (conn) => {
    await conn.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         name text PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = new Set(
      (await conn.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name),
    );
    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const file of files) {
      if (done.has(file)) {
        result.alreadyApplied.push(file);
        continue;
      }
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      try {
        await db.transaction(async (tx) => {
          for (const statement of splitStatements(sql)) await tx.query(statement);
          await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        });
      } catch (error) {
        throw new Error(`Migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      result.applied.push(file);
    }
    return result;
  });
}

/** Migrations are plain DDL: statements end with ";" at the end of a line. No functions with bodies. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
