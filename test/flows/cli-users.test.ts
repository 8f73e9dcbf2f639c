/**
 * `rentpay users invite|list|set-role|remove` as an operator runs them: real processes on the test's database (a
 * DATA_DIR folder on PGlite, a schema of its own on PostgreSQL). An invite prints a one-time link whose token is
 * stored only as its hash, valid 72 hours; a team keeps an admin; every change is in the team's audit log as the CLI's.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UNLIMITED } from '../support/api-client.ts';
import { databaseForCli, runRentpay, startTestApp, type TestDatabase } from '../support/helpers.ts';

const LINK = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/dashboard\/setup#invite=(rpi_[A-Za-z0-9]{40}))$/m;

describe('rentpay users', { timeout: 300_000 }, () => {
  let dataDir: string;
  let database: TestDatabase;
  let integratorId: string;
  let otherIntegratorId: string;

  const rentpay = (args: string[]) =>
    runRentpay(['users', ...args], {
      ...(process.env as Record<string, string>),
      SERVICE_ENV: 'sandbox',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
    });
  const json = async (args: string[]) => {
    const run = await rentpay([...args, '--json']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  async function query<Row>(sql: string, params: string[] = []): Promise<Row[]> {
    const db = await database.open();
    try {
      return await db.query<Row>(sql, params);
    } finally {
      await db.close();
    }
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-users-'));
    database = await databaseForCli(dataDir);
    const db = await database.open();
    const t = await startTestApp({ database, db });
    try {
      integratorId = (await t.createIntegrator(UNLIMITED)).id;
      otherIntegratorId = (await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' })).id;
    } finally {
      await t.close();
      await db.close();
    }
  });
  after(async () => {
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('invite prints a one-time link valid 72 hours; only the token’s hash is stored', async () => {
    const run = await rentpay([
      'invite',
      '--integrator',
      integratorId,
      '--email',
      'Ada@Example.com',
      '--role',
      'admin',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`^Invited Ada@Example.com as admin \\(dus_\\w+\\) to ${integratorId}\\.$`, 'm'),
    );
    const [, , token] = LINK.exec(run.stdout)!;
    const [invite] = await query<{
      token_hash: string;
      created_at: Date;
      expires_at: Date;
      used_at: Date | null;
    }>('SELECT token_hash, created_at, expires_at, used_at FROM dashboard_invites');
    assert.equal(invite!.token_hash, createHash('sha256').update(token!).digest('hex'));
    assert.equal(invite!.expires_at.getTime() - invite!.created_at.getTime(), 72 * 3_600_000);
    assert.equal(invite!.used_at, null);
    assert.equal((await query('SELECT 1 FROM dashboard_invites WHERE token_hash = $1', [token!])).length, 0);
  });

  it('inviting again someone who has not set up ends the old link and gives a new one', async () => {
    const again = await json([
      'invite',
      '--integrator',
      integratorId,
      '--email',
      'ada@example.com',
      '--role',
      'admin',
    ]);
    assert.match(again.link, /#invite=rpi_/);
    const live = await query<{ n: number }>(
      'SELECT count(*)::int AS n FROM dashboard_invites WHERE expires_at > now() AND used_at IS NULL',
    );
    assert.equal(live[0]!.n, 1);
  });

  it('list shows the team, oldest first, each invited until they set up', async () => {
    await json(['invite', '--integrator', integratorId, '--email', 'sam@example.com', '--role', 'support']);
    const { data } = await json(['list', '--integrator', integratorId]);
    assert.deepEqual(
      data.map((u: { email: string; role: string; status: string }) => [u.email, u.role, u.status]),
      [
        ['Ada@Example.com', 'admin', 'invited'],
        ['sam@example.com', 'support', 'invited'],
      ],
    );
    const text = await rentpay(['list', '--integrator', integratorId]);
    assert.match(text.stdout, /^ID\s+EMAIL\s+ROLE\s+STATUS\s+CREATED$/m);
    assert.deepEqual((await json(['list', '--integrator', otherIntegratorId])).data, []);
  });

  it('refuses a wrong role, a bad email, a person of another team, an unknown integrator; exit 2', async () => {
    for (const [args, message] of [
      [
        ['--integrator', integratorId, '--email', 'x@example.com', '--role', 'operator_admin'],
        /--role: Choose one of: admin, developer, finance, support\./,
      ],
      [
        ['--operator', '--email', 'x@example.com', '--role', 'admin'],
        /--role: Choose one of: operator_admin, operator_support\./,
      ],
      [
        ['--integrator', integratorId, '--email', 'not an email', '--role', 'admin'],
        /--email: Enter a valid email address\./,
      ],
      [
        ['--integrator', otherIntegratorId, '--email', 'sam@example.com', '--role', 'admin'],
        /sam@example.com belongs to another team/,
      ],
      [
        ['--integrator', 'int_Unknown', '--email', 'y@example.com', '--role', 'admin'],
        /No integrator int_Unknown\./,
      ],
      [['--email', 'y@example.com', '--role', 'admin'], /Pass --integrator <id> or --operator\./],
    ] as const) {
      const run = await rentpay(['invite', ...args]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}`);
      assert.match(run.stderr, message);
    }
    assert.equal((await json(['list', '--integrator', integratorId])).data.length, 2, 'nothing changed');
  });

  it('set-role and remove; the team’s only admin can be neither demoted nor removed', async () => {
    const { data } = await json(['list', '--integrator', integratorId]);
    const [ada, sam] = data;
    const demote = await rentpay(['set-role', ada.id, 'finance']);
    assert.equal(demote.code, 2);
    assert.match(demote.stderr, /Ada@Example.com is the team's only admin; make someone else admin first\./);
    assert.equal((await rentpay(['remove', ada.id])).code, 2);

    const promoted = await rentpay(['set-role', sam.id, 'admin']);
    assert.equal(promoted.code, 0, promoted.stderr);
    assert.equal(promoted.stdout, 'sam@example.com is now admin.\n');
    assert.equal((await json(['set-role', ada.id, 'finance'])).role, 'finance');
    assert.equal((await json(['remove', ada.id])).status, 'removed');
    const unknown = await rentpay(['remove', ada.id]);
    assert.match(unknown.stderr, new RegExp(`No person ${ada.id} in this team\\.`));
  });

  it('operator staff are invited with --operator; every change is audited as the CLI’s', async () => {
    const staff = await json([
      'invite',
      '--operator',
      '--email',
      'ops@example.com',
      '--role',
      'operator_admin',
    ]);
    assert.equal(staff.user.integrator_id, null);
    const entries = await query<{ scope: string; action: string; actor: { kind: string; os_user: string } }>(
      "SELECT scope, action, actor FROM audit_log WHERE action LIKE 'team.%' ORDER BY scope, seq",
    );
    assert.deepEqual(
      entries.map((e) => [e.scope === integratorId ? 'team' : e.scope, e.action]),
      [
        ['team', 'team.invite'],
        ['team', 'team.invite'],
        ['team', 'team.invite'],
        ['team', 'team.set_role'],
        ['team', 'team.set_role'],
        ['team', 'team.remove'],
        ['operator', 'team.invite'],
      ],
    );
    for (const entry of entries)
      assert.deepEqual(entry.actor, { kind: 'cli', os_user: os.userInfo().username });
    const verify = await runRentpay(['audit', 'verify'], {
      ...(process.env as Record<string, string>),
      DATA_DIR: dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
    });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });
});
