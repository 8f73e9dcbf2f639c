import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/platform/config/config.ts';
import { openDatabase } from '../src/platform/db/db.ts';
import { CASES } from './cases.ts';
import { portOf, runChild } from './child.ts';

/** A prepared statement by name, on stock node-postgres (PostgreSQL) or the app's embedded database (PGlite). */
export type ReferenceQuery = <Row>(name: string, sql: string, params: unknown[]) => Promise<Row[]>;

/**
 * A yardstick's server process: the real app seeds the case's data and is closed before the load starts; then bare
 * Fastify with `install`'s routes, on a node-postgres pool of the app's size. On PGlite it runs on the app's
 * embedded database (one process may open it).
 */
export function runReferenceServer(install: (app: FastifyInstance, query: ReferenceQuery) => void): void {
  runChild(async () => {
    const config = loadConfig(process.env);
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const seeding = await buildApp(config, { db });
    const pool = config.databaseUrl
      ? new pg.Pool({ connectionString: config.databaseUrl, max: 20 })
      : undefined;
    const query: ReferenceQuery = async <Row>(name: string, sql: string, params: unknown[]) =>
      pool
        ? ((await pool.query({ name, text: sql, values: params })).rows as Row[])
        : db.query<Row>(sql, params as never);
    const benchCase = CASES.find((c) => c.name === process.env.BENCH_CASE);
    if (!benchCase) throw new Error(`unknown benchmark case "${process.env.BENCH_CASE ?? ''}"`);
    const data = await benchCase.setup(seeding);
    await seeding.close();

    const app = Fastify({ logger: false });
    install(app, query);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      port: portOf(app.server),
      data,
      close: async () => {
        await app.close();
        await pool?.end();
        await db.close();
      },
    };
  });
}
