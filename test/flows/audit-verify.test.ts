/**
 * `rentpay audit verify` and `rentpay audit list` as an operator runs them: real processes on the test's database (a
 * DATA_DIR folder on PGlite, which one process opens at a time; a schema of its own on PostgreSQL). The chain of
 * changes made through the APIs verifies; an entry edited in the database (past the append-only trigger, as someone
 * with the database's owner rights could) is named; so is a removed newest entry.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { send, UNLIMITED } from '../support/api-client.ts';
import {
  databaseForCli,
  runRentpay,
  startTestApp,
  type TestApp,
  type TestDatabase,
  tokenHeader,
} from '../support/helpers.ts';

describe('rentpay audit verify and list', { timeout: 300_000 }, () => {
  let dataDir: string;
  let database: TestDatabase;
  let integrator: { id: string; token: string };

  /** A service on the database, closed (and the database with it) before any CLI run. */
  async function withApp<T>(fn: (t: TestApp) => Promise<T>): Promise<T> {
    const db = await database.open();
    const t = await startTestApp({ database, db });
    try {
      return await fn(t);
    } finally {
      await t.close();
      await db.close();
    }
  }

  /** SQL on the database with the append-only trigger off, as an attacker with the owner's rights would run it. */
  async function tamper(sql: string, params: unknown[]): Promise<void> {
    const db = await database.open();
    try {
      await db.transaction(async (tx) => {
        await tx.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only');
        await tx.query(sql, params as string[]);
        await tx.query('ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only');
      });
    } finally {
      await db.close();
    }
  }

  const rentpay = (args: string[]) =>
    runRentpay(args, {
      ...(process.env as Record<string, string>),
      SERVICE_ENV: 'sandbox',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
    });

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-audit-'));
    database = await databaseForCli(dataDir);
    await withApp(async (t) => {
      integrator = await t.createIntegrator(UNLIMITED);
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        const rotated = await send(t, {
          method: 'POST',
          url: '/api/third-party/webhook-endpoint/rotate-secret/',
          headers: tokenHeader(integrator.token),
        });
        assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
      }
    });
  });
  after(async () => {
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an untouched log verifies: each chain with its entries and head; exit 0', async () => {
    const run = await rentpay(['audit', 'verify']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, new RegExp(`^${integrator.id}: 4 entries, head [0-9a-f]{64}$`, 'm'));
    assert.match(run.stdout, /^Every chain holds \(\d+\)\.$/m);
  });

  it('audit list shows the integrator’s entries newest first, and --json the same entries as the API', async () => {
    const text = await rentpay(['audit', 'list', '--integrator', integrator.id]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.match(lines[0]!, /^ID\s+WHEN\s+WHO\s+ACTION\s+TARGET$/);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(/\s{2,}/)[3]),
      ['webhook_secret.rotate', 'webhook_secret.rotate', 'webhook_secret.rotate', 'integrator.create'],
    );
    assert.match(lines.at(-1)!, /operator token\s+integrator\.create/);

    const json = await rentpay(['audit', 'list', '--integrator', integrator.id, '--json', '--limit', '2']);
    const page = JSON.parse(json.stdout);
    assert.equal(page.has_more, true);
    const api = await withApp((t) =>
      send(t, {
        method: 'GET',
        url: '/api/third-party/audit-log/?limit=2',
        headers: tokenHeader(integrator.token),
      }),
    );
    assert.deepEqual(page, api.body);

    const neither = await rentpay(['audit', 'list']);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /Pass --integrator <id> or --operator\./);
  });

  it('the database refuses to update or delete an entry', async () => {
    const db = await database.open();
    try {
      await assert.rejects(db.query("UPDATE audit_log SET action = 'x'"), /audit_log is append-only/);
      await assert.rejects(db.query('DELETE FROM audit_log'), /audit_log is append-only/);
    } finally {
      await db.close();
    }
  });

  it('an entry edited past the trigger is named by verify, which exits 1', async () => {
    const second = await entryAt(2);
    await tamper(
      `UPDATE audit_log SET summary = jsonb_set(summary, '{after,previous_secret_expires_at}', '"2099-01-01T00:00:00.000Z"')
        WHERE id = $1`,
      [second],
    );
    const run = await rentpay(['audit', 'verify']);
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stdout,
      new RegExp(
        `^${integrator.id}: BROKEN at entry ${second} \\(#2\\): its hash is not the hash of its content`,
        'm',
      ),
    );
    const json = JSON.parse((await rentpay(['audit', 'verify', '--json'])).stdout);
    assert.deepEqual(json.broken, { reason: 'hash', id: second, seq: 2, scope: integrator.id });
  });

  it('the newest entry removed is found at the head', async () => {
    // The edit above put back first, so only the removal breaks the chain.
    await freshLog();
    await tamper('DELETE FROM audit_log WHERE scope = $1 AND seq = 4', [integrator.id]);
    const run = await rentpay(['audit', 'verify']);
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stdout,
      new RegExp(`^${integrator.id}: BROKEN at the head: the chain ends before its recorded head`, 'm'),
    );
  });

  async function entryAt(seq: number): Promise<string> {
    const db = await database.open();
    try {
      const [row] = await db.query<{ id: string }>('SELECT id FROM audit_log WHERE scope = $1 AND seq = $2', [
        integrator.id,
        seq,
      ]);
      return row!.id;
    } finally {
      await db.close();
    }
  }

  /** A new integrator with a clean chain, for a test that must break only its own. */
  async function freshLog(): Promise<void> {
    await tamper('DELETE FROM audit_log WHERE scope = $1', [integrator.id]);
    await tamper('DELETE FROM audit_heads WHERE scope = $1', [integrator.id]);
    await withApp(async (t) => {
      integrator = await t.createIntegrator(UNLIMITED);
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        await send(t, {
          method: 'POST',
          url: '/api/third-party/webhook-endpoint/rotate-secret/',
          headers: tokenHeader(integrator.token),
        });
      }
    });
    const run = await rentpay(['audit', 'verify']);
    assert.equal(run.code, 0, run.stdout);
  }
});
