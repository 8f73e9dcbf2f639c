/**
 * The files in deploy/ run exactly the documented build, install and start commands. Images cannot be built here, so
 * the Dockerfile, the Compose file and the systemd units are read for their commands, and those same commands then run
 * for real in temporary folders: the build stage's in a copy of the repository, the runtime stage's in a folder that
 * holds only what docs/going-live.md ships, from which the CLI migrates, serves /healthz and stops on SIGTERM.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/platform/config/config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

// --- The Dockerfile -----------------------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions by stage: continuation lines joined, comments (and the syntax directive) dropped. */
function dockerStages(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [, from = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ from, name, instructions: [] });
      continue;
    }
    assert.ok(stages.length > 0, `${keyword} before the first FROM`);
    stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

function all(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

/** A RUN's shell command, without BuildKit's own flags (--mount=…, --network=…). */
function runCommand(args: string): string {
  return args.replace(/^(--\S+\s+)*/, '').trim();
}

/** COPY's flags, sources and destination. */
function copyParts(args: string): { flags: string[]; sources: string[]; destination: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const rest = words.filter((word) => !word.startsWith('--'));
  return { flags, sources: rest.slice(0, -1), destination: rest.at(-1) ?? '' };
}

// --- docs/going-live.md -------------------------------------------------------------------------------------------

/** The names in "Ship `a`, `b` … and `c`." of going-live.md's "Build and run", without trailing slashes. */
function shippedList(): string[] {
  const doc = read('docs/going-live.md');
  const section = doc.slice(doc.indexOf('\n## Build and run'));
  const paragraph = section
    .split(/\n\s*\n/)
    .find((block) => block.trimStart().startsWith('Ship '))
    ?.replace(/\s+/g, ' ');
  assert.ok(paragraph, 'docs/going-live.md "Build and run" has a paragraph starting "Ship "');
  const sentence = /^\s*Ship ([\s\S]*?)\.(?:\s|$)/.exec(paragraph)?.[1] ?? '';
  const names = [...sentence.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.replace(/\/+$/, ''));
  assert.ok(names.length > 0, `no names in: ${paragraph}`);
  return names;
}

// --- Configuration ------------------------------------------------------------------------------------------------

const UPPER_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** Every variable src/platform/config/config.ts reads: `env.NAME`, and names passed as string literals. */
function configVariables(): string[] {
  const source = read('src/platform/config/config.ts');
  const names = new Set<string>();
  for (const match of source.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(match[1]!);
  for (const match of source.matchAll(/'([^'\n]+)'/g)) if (UPPER_NAME.test(match[1]!)) names.add(match[1]!);
  return [...names].sort();
}

/** The variables the CLI's operator commands read (commander's `.env('NAME')`). */
function operatorCliVariables(): string[] {
  const source = read('src/cli/operator-client.ts');
  return [...source.matchAll(/\.env\('([A-Z][A-Z0-9_]*)'\)/g)].map((match) => match[1]!).sort();
}

interface EnvLine {
  name: string;
  value: string;
  /** `#NAME=value`: shown, not set. */
  commented: boolean;
  /** The comment line right above it. */
  comment: string;
}

function envExample(): EnvLine[] {
  const lines = read('deploy/rentpay.env.example').split('\n');
  const entries: EnvLine[] = [];
  lines.forEach((line, i) => {
    const found = /^(#?)([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (found) {
      entries.push({
        name: found[2]!,
        value: found[3]!,
        commented: found[1] === '#',
        comment: lines[i - 1] ?? '',
      });
    }
  });
  return entries;
}

/** SHUTDOWN_TIMEOUT_MS's default in config.ts, in seconds. */
function defaultShutdownSeconds(): number {
  const found = /'SHUTDOWN_TIMEOUT_MS',\s*([\d_]+)/.exec(read('src/platform/config/config.ts'));
  assert.ok(found, 'SHUTDOWN_TIMEOUT_MS has a default in config.ts');
  return Number(found[1]!.replaceAll('_', '')) / 1000;
}

// --- systemd ------------------------------------------------------------------------------------------------------

/** A unit's settings by section; a key set more than once keeps every value. */
function unit(file: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of read(path.join('deploy/systemd', file)).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      sections[section] ??= {};
      continue;
    }
    const at = line.indexOf('=');
    assert.ok(at > 0 && section !== '', `${file}: cannot read "${line}"`);
    const key = line.slice(0, at).trim();
    const values = sections[section]![key] ?? [];
    values.push(line.slice(at + 1).trim());
    sections[section]![key] = values;
  }
  return sections;
}

function seconds(value: string): number {
  const found = /^(\d+)\s*(s|sec|min|m)?$/.exec(value);
  assert.ok(found, `a time span: ${value}`);
  return Number(found[1]) * (found[2] === 'min' || found[2] === 'm' ? 60 : 1);
}

// --- Processes ----------------------------------------------------------------------------------------------------

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after timeoutMs) and resolves with its status and output, whatever they are. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function describeResult(what: string, result: Result): string {
  const tail = (text: string) => text.split('\n').slice(-40).join('\n');
  return `${what} exited with ${result.code ?? result.signal}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
}

/** The environment for npm and the CLI: this one, without what an outer npm or test runner put there. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'NODE_ENV' || key === 'NODE_TEST_CONTEXT')
      continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

const NPM_ENV = {
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_prefer_offline: 'true',
};

/** Resolves with the URL `serve` prints once it listens; rejects if it exits or takes longer than timeoutMs. */
function listening(child: ChildProcess, timeoutMs: number, output: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not print its banner within ${timeoutMs} ms:\n${output.text}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
      const found = /rentpay is listening on (http:\/\/\S+)/.exec(output.text);
      if (found) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(found[1]!);
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${output.text}`));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
    });
    child.once('exit', onExit);
  });
}

// --- The files, read ----------------------------------------------------------------------------------------------

const stages = dockerStages(read('deploy/Dockerfile'));
const buildStage = stages.find((stage) => stage.name === 'build');
const runtimeStage = stages.at(-1)!;
const HEALTHCHECK = /^(?:--\S+\s+)*CMD\s+(\[.*\])$/;

function healthcheckCommand(): string[] {
  const [healthcheck] = all(runtimeStage, 'HEALTHCHECK');
  const found = HEALTHCHECK.exec(healthcheck ?? '');
  assert.ok(found, `HEALTHCHECK in exec form: ${healthcheck}`);
  return JSON.parse(found[1]!) as string[];
}

describe('deploy/Dockerfile', () => {
  it('builds with npm ci and npm run build, on the same Node image as it runs', () => {
    assert.ok(buildStage, 'a stage named build');
    assert.equal(stages.length, 2);
    assert.equal(buildStage.from, 'node:20-bookworm-slim');
    assert.equal(runtimeStage.from, buildStage.from);
    assert.deepEqual(all(buildStage, 'RUN').map(runCommand), ['npm ci', 'npm run build']);
  });

  it('ships exactly the list in docs/going-live.md, each where the build left it', () => {
    const copies = all(runtimeStage, 'COPY').map(copyParts);
    assert.ok(copies.length > 0);
    const shipped: string[] = [];
    for (const { flags, sources, destination } of copies) {
      assert.deepEqual(
        flags,
        ['--from=build'],
        `the runtime stage copies only from the build stage: ${flags}`,
      );
      for (const source of sources) {
        assert.ok(source.startsWith('/app/'), `${source} comes from the build stage's /app`);
        const name = source.slice('/app/'.length).replace(/\/+$/, '');
        const target = destination.replace(/\/+$/, '');
        if (target === '.' || target === '') {
          assert.ok(!source.endsWith('/'), `${source} is a file copied into /app`);
        } else {
          assert.equal(target, name, `${source} lands at /app/${name}`);
        }
        shipped.push(name);
      }
    }
    assert.deepEqual(shipped, shippedList());
    for (const name of shipped) assert.ok(fs.existsSync(path.join(ROOT, name)) || /dist$/.test(name), name);
  });

  it('installs with npm ci --omit=dev and runs bin/rentpay.mjs serve as the user node', () => {
    const runs = all(runtimeStage, 'RUN').map(runCommand);
    assert.deepEqual(
      runs.filter((command) => command.startsWith('npm')),
      ['npm ci --omit=dev'],
    );
    assert.ok(runs.includes('ln -s /app/bin/rentpay.mjs /usr/local/bin/rentpay'), 'rentpay on PATH');
    assert.deepEqual(all(runtimeStage, 'WORKDIR'), ['/app']);
    assert.deepEqual(all(runtimeStage, 'USER'), ['node']);
    const env = all(runtimeStage, 'ENV').join(' ');
    for (const setting of ['NODE_ENV=production', 'HOST=0.0.0.0', 'PORT=8080'])
      assert.ok(env.includes(setting), setting);
    assert.deepEqual(all(runtimeStage, 'EXPOSE'), ['8080']);
    assert.deepEqual(JSON.parse(all(runtimeStage, 'ENTRYPOINT')[0] ?? ''), ['node', 'bin/rentpay.mjs']);
    assert.deepEqual(JSON.parse(all(runtimeStage, 'CMD')[0] ?? ''), ['serve']);
    const [node, flag, script] = healthcheckCommand();
    assert.equal(node, 'node');
    assert.equal(flag, '-e');
    assert.match(script ?? '', /\/healthz/);
  });

  it('keeps dependencies, earlier builds, data and filled-in settings out of the build context', () => {
    const ignored = read('deploy/Dockerfile.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const entry of [
      '**/node_modules',
      'dist',
      'web/dist',
      'data',
      'deploy/rentpay.env',
      'deploy/.env',
    ]) {
      assert.ok(ignored.includes(entry), entry);
    }
  });
});

describe('deploy/docker-compose.yml', () => {
  const compose = read('deploy/docker-compose.yml');

  it('builds the Dockerfile and runs migrate once, two serve --no-worker and one worker', () => {
    assert.match(compose, /^\s+context: \.\.$/m);
    assert.match(compose, /^\s+dockerfile: deploy\/Dockerfile$/m);
    assert.match(compose, /^\s+env_file: rentpay\.env$/m);
    assert.match(compose, /^\s+image: postgres:16\b/m);
    assert.equal(compose.match(/^\s+command: \["migrate"\]$/gm)?.length, 1);
    assert.equal(compose.match(/^\s+command: \["serve", "--no-worker"\]$/gm)?.length, 2);
    assert.equal(compose.match(/^\s+command: \["worker"\]$/gm)?.length, 1);
    assert.match(compose, /condition: service_completed_successfully/);
  });

  it('checks /healthz as the image does, and gives a stop more than SHUTDOWN_TIMEOUT_MS', () => {
    assert.ok(
      compose.includes(`- ${healthcheckCommand()[2]}\n`),
      'the same health check script as the image',
    );
    const grace = /stop_grace_period: (\d+)s/.exec(compose);
    assert.ok(grace, 'stop_grace_period');
    assert.ok(Number(grace[1]) > defaultShutdownSeconds(), `${grace[1]} s > SHUTDOWN_TIMEOUT_MS`);
  });
});

describe('deploy/systemd', () => {
  const units = [
    { file: 'rentpay-serve@.service', command: 'serve --no-worker' },
    { file: 'rentpay-worker.service', command: 'worker' },
    { file: 'rentpay-migrate.service', command: 'migrate' },
  ];

  for (const { file, command } of units) {
    it(`${file} runs bin/rentpay.mjs ${command} as rentpay, from /opt/rentpay, hardened`, () => {
      const { Unit: head = {}, Service: service = {} } = unit(file);
      assert.deepEqual(service.ExecStart, [`/usr/bin/node /opt/rentpay/bin/rentpay.mjs ${command}`]);
      assert.deepEqual(service.WorkingDirectory, ['/opt/rentpay']);
      assert.deepEqual(service.User, ['rentpay']);
      assert.deepEqual(service.EnvironmentFile, ['/etc/rentpay/rentpay.env']);
      assert.deepEqual(service.Restart, ['on-failure']);
      assert.deepEqual(service.KillSignal, ['SIGTERM']);
      assert.ok(seconds(service.TimeoutStopSec?.[0] ?? '') > defaultShutdownSeconds(), 'TimeoutStopSec');
      assert.deepEqual(service.NoNewPrivileges, ['yes']);
      assert.deepEqual(service.ProtectSystem, ['strict']);
      assert.deepEqual(service.PrivateTmp, ['yes']);
      if (command === 'migrate') {
        assert.deepEqual(service.Type, ['oneshot']);
      } else {
        const after = (head.After ?? []).join(' ').split(/\s+/);
        const pulls = [...(head.Wants ?? []), ...(head.Requires ?? [])].join(' ').split(/\s+/);
        assert.ok(after.includes('rentpay-migrate.service'), 'starts after the migration');
        assert.ok(pulls.includes('rentpay-migrate.service'), 'starts the migration');
      }
    });
  }

  it('each HTTP node takes its port from the instance name', () => {
    assert.deepEqual(unit('rentpay-serve@.service').Service?.Environment, ['PORT=%i']);
  });
});

describe('deploy/rentpay.env.example', () => {
  const entries = envExample();
  const byName = new Map(entries.map((entry) => [entry.name, entry]));

  it('lists every variable config.ts and the operator commands read, and no other, once each', () => {
    const names = entries.map((entry) => entry.name);
    assert.deepEqual(
      names.filter((name, i) => names.indexOf(name) !== i),
      [],
      'listed twice',
    );
    const read = [...configVariables(), ...operatorCliVariables()].sort();
    assert.ok(read.includes('DATABASE_URL') && read.includes('RENTPAY_URL'), 'found the variables');
    assert.deepEqual(
      read.filter((name) => !byName.has(name)),
      [],
      'read by rentpay but missing from the example',
    );
    assert.deepEqual(
      [...names].sort().filter((name) => !read.includes(name)),
      [],
      'in the example but read by nothing',
    );
  });

  it('explains each variable on the line above it, saying whether it is required', () => {
    for (const { name, comment } of entries) {
      assert.match(comment, /^# .*\b(required|optional)\b/i, `${name}: ${comment}`);
    }
  });

  it('sets what production requires, with placeholders for the secrets', () => {
    const set = (name: string) => {
      const entry = byName.get(name);
      assert.ok(entry && !entry.commented, `${name} is set`);
      return entry.value;
    };
    assert.equal(set('SERVICE_ENV'), 'production');
    assert.equal(set('PAYMENT_PROCESSOR'), 'stripe');
    assert.equal(set('HOST'), '0.0.0.0');
    assert.match(set('PUBLIC_URL'), /^https:\/\//);
    assert.match(set('DATABASE_URL'), /^postgres(ql)?:\/\//);
    assert.match(set('STRIPE_SECRET_KEY'), /^sk_live_/);
    assert.match(set('STRIPE_PUBLISHABLE_KEY'), /^pk_live_/);
    assert.match(set('STRIPE_WEBHOOK_SECRET'), /^whsec_/);
    for (const secret of [
      'OPERATOR_TOKEN',
      'DOCUMENT_ENCRYPTION_KEY',
      'METRICS_TOKEN',
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
      'RENTPAY_OPERATOR_TOKEN',
    ]) {
      assert.match(set(secret), /change-me/, secret);
    }
    // The units and the image set PORT; a PORT in the file would override the units' Environment=PORT=%i.
    assert.equal(byName.get('PORT')?.commented, true, 'PORT is left unset');
  });

  it('is a production configuration once the placeholders are filled in, and refused until then', () => {
    const env = Object.fromEntries(
      entries.filter((entry) => !entry.commented).map((entry) => [entry.name, entry.value]),
    );
    assert.throws(
      () => loadConfig(env),
      (error: unknown) =>
        error instanceof ConfigError &&
        ['OPERATOR_TOKEN', 'DOCUMENT_ENCRYPTION_KEY', 'METRICS_TOKEN'].every((name) =>
          error.message.includes(name),
        ),
    );
    const config = loadConfig({
      ...env,
      OPERATOR_TOKEN: 'o'.repeat(32),
      METRICS_TOKEN: 'm'.repeat(32),
      DOCUMENT_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    assert.equal(config.serviceEnv, 'production');
    assert.equal(config.paymentProcessor, 'stripe');
    assert.equal(config.host, '0.0.0.0');
  });
});

// --- The commands, run --------------------------------------------------------------------------------------------

describe('the documented build, install and start, run for real', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-deploy-'));
  const buildDir = path.join(work, 'build');
  const runDir = path.join(work, 'app');
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  /** Runs one of the Dockerfile's RUN commands (plain words, no shell) in dir. */
  async function dockerRun(command: string, dir: string, extra: Record<string, string> = {}) {
    const [program = '', ...args] = command.split(/\s+/);
    const result = await run(program, args, {
      cwd: dir,
      env: cleanEnv({ ...NPM_ENV, ...extra }),
      timeoutMs: 8 * 60_000,
    });
    assert.equal(result.code, 0, describeResult(command, result));
  }

  it('the build stage: npm ci and npm run build in a copy of the repository', {
    timeout: 15 * 60_000,
  }, async () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
      .split('\0')
      .filter((file) => file !== '' && !/^(node_modules|dist|web\/dist|data)(\/|$)/.test(file));
    for (const file of files) {
      const from = path.join(ROOT, file);
      const stat = fs.lstatSync(from, { throwIfNoEntry: false });
      if (!stat) continue; // deleted in the working tree
      const to = path.join(buildDir, file);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
      else fs.copyFileSync(from, to);
    }
    for (const command of all(buildStage!, 'RUN').map(runCommand)) await dockerRun(command, buildDir);
    assert.ok(fs.existsSync(path.join(buildDir, 'dist/cli/main.js')), 'dist/ has the compiled CLI');
    assert.ok(fs.existsSync(path.join(buildDir, 'web/dist/page')), 'web/dist/ has the page');
  });

  it('the runtime stage: only the shipped files, then npm ci --omit=dev', {
    timeout: 10 * 60_000,
  }, async () => {
    for (const name of shippedList()) {
      assert.ok(fs.existsSync(path.join(buildDir, name)), `the build has ${name}`);
      fs.cpSync(path.join(buildDir, name), path.join(runDir, name), { recursive: true });
    }
    const install = all(runtimeStage, 'RUN')
      .map(runCommand)
      .filter((command) => command.startsWith('npm'));
    for (const command of install) await dockerRun(command, runDir, { NODE_ENV: 'production' });
    for (const name of ['tsx', 'typescript', 'vite']) {
      assert.equal(fs.existsSync(path.join(runDir, 'node_modules', name)), false, `${name} is not installed`);
    }
    assert.equal(fs.existsSync(path.join(runDir, 'src')), false);
  });

  it('the CLI runs from there, and through a link on PATH from any folder', {
    timeout: 5 * 60_000,
  }, async () => {
    const env = cleanEnv({ NODE_ENV: 'production' });
    const help = await run(process.execPath, ['bin/rentpay.mjs', '--help'], {
      cwd: runDir,
      env,
      timeoutMs: 2 * 60_000,
    });
    assert.equal(help.code, 0, describeResult('rentpay --help', help));
    for (const command of ['serve', 'worker', 'migrate'])
      assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
    const serveHelp = await run(process.execPath, ['bin/rentpay.mjs', 'serve', '--help'], {
      cwd: runDir,
      env,
      timeoutMs: 2 * 60_000,
    });
    assert.match(serveHelp.stdout, /--no-worker/);

    // As `ln -s /app/bin/rentpay.mjs /usr/local/bin/rentpay` in the image and the systemd install.
    const binDir = path.join(work, 'path-bin');
    fs.mkdirSync(binDir);
    fs.symlinkSync(path.join(runDir, 'bin/rentpay.mjs'), path.join(binDir, 'rentpay'));
    const pathEnv = cleanEnv({
      NODE_ENV: 'production',
      PATH: [binDir, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    });
    const linked = await run('rentpay', ['--help'], { cwd: work, env: pathEnv, timeoutMs: 2 * 60_000 });
    assert.equal(linked.code, 0, describeResult('rentpay --help through the link', linked));
    assert.match(linked.stdout, /\bmigrate\b/);
  });

  it('migrate, then serve answers /healthz and the image health check, and stops on SIGTERM with 0', {
    timeout: 10 * 60_000,
  }, async () => {
    const env = cleanEnv({
      NODE_ENV: 'production',
      DATA_DIR: path.join(work, 'data'),
      PORT: '0',
      LOG_LEVEL: 'warn',
    });
    const migrated = await run(process.execPath, ['bin/rentpay.mjs', 'migrate'], {
      cwd: runDir,
      env,
      timeoutMs: 4 * 60_000,
    });
    assert.equal(migrated.code, 0, describeResult('rentpay migrate', migrated));
    const migrations = fs
      .readdirSync(path.join(runDir, 'migrations'))
      .filter((name) => name.endsWith('.sql'));
    assert.match(migrated.stdout, new RegExp(`^Applied ${migrations.length} migration\\(s\\)`, 'm'));

    const server = spawn(process.execPath, ['bin/rentpay.mjs', 'serve'], {
      cwd: runDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { text: '' };
    try {
      const base = await listening(server, 4 * 60_000, output);
      const port = new URL(base).port;
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      assert.equal((await fetch(`${base}/readyz`)).status, 200);

      const [node = '', ...args] = healthcheckCommand();
      assert.equal(node, 'node');
      const check = () =>
        run(process.execPath, args, { cwd: runDir, env: cleanEnv({ PORT: port }), timeoutMs: 60_000 });
      const healthy = await check();
      assert.equal(healthy.code, 0, describeResult('the HEALTHCHECK', healthy));

      const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      assert.equal(await exited, 0, output.text);
      assert.match(output.text, /SIGTERM received/);
      assert.equal((await check()).code, 1, 'the HEALTHCHECK fails once the server is gone');
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
  });
});
