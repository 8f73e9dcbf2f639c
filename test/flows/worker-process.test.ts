import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { IntegratorService } from '../../src/integrators/service.ts';
import { systemClock } from '../../src/platform/clock/clock.ts';
import { openDatabase } from '../../src/platform/db/db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { createTestDatabase, pgliteDataDir } from '../support/helpers.ts';

describe('rentpay worker (a real process)', () => {
  it('runs due jobs from the database and stops cleanly on SIGTERM', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-worker-'));
    const options = { databaseUrl: database.databaseUrl, dataDir };
    try {
      await pgliteDataDir(dataDir);
      // A rotation with no grace leaves one expired token and a due job to retire it.
      const setup = await openDatabase(options);
      await migrate(setup);
      const integrators = new IntegratorService(setup, systemClock, 'sandbox');
      const { integrator } = await integrators.create({ name: 'Worker test' }, SYSTEM_ACTOR);
      const [first] = await setup.query<{ id: string }>(
        'SELECT id FROM server_tokens WHERE integrator_id = $1',
        [integrator.id],
      );
      await integrators.rotate(integrator.id, first!.id, 0, SYSTEM_ACTOR);
      await setup.close();

      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        WORKER_POLL_INTERVAL_MS: '50',
        // The worker's health and metrics listen on PORT: any free one.
        PORT: '0',
      };
      if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
      const child = spawn(process.execPath, ['bin/rentpay.mjs', 'worker'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      await new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no job ran within 60 s: ${out} ${stderr}`)), 60_000);
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const done = out
            .split('\n')
            // Log lines are JSON; the line saying where the health endpoints are is for people.
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line))
            .some((l) => l.msg === 'job succeeded' && l.job_kind === 'server-token.retire');
          if (done) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${stderr}`)));
      });
      child.removeAllListeners('exit');
      const exitCode = await new Promise<number | null>((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGTERM');
      });
      assert.equal(exitCode, 0, stderr);

      const check = await openDatabase(options);
      const tokens = await check.query<{ id: string }>(
        'SELECT id FROM server_tokens WHERE integrator_id = $1',
        [integrator.id],
      );
      assert.equal(tokens.length, 1, 'the expired token was retired');
      assert.notEqual(tokens[0]?.id, first!.id);
      const [job] = await check.query<{ status: string }>(
        `SELECT status FROM jobs WHERE kind = 'server-token.retire'`,
      );
      assert.equal(job?.status, 'succeeded');
      await check.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
