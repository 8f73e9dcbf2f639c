/**
 * A PostgreSQL server of a test's own (initdb in a temporary folder, its own port), for tests that stop, start or
 * kill the database: they never touch the shared server the other suites use. PostgreSQL refuses to run as root,
 * so as root its commands run as the postgres user.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs
    .readdirSync(root)
    .filter((name) => fs.existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return path.join(root, versions[0]!, 'bin');
}

/** A TCP port nothing listens on now (on 127.0.0.1). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  start(): void;
  /** mode "fast": clients are disconnected and the server shuts down cleanly; "immediate": as if killed. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Stops the server (if running) and deletes its folder. */
  destroy(): void;
  /**
   * Runs one of PostgreSQL's client programs of the server's version (createdb, dropdb, pg_dump, pg_restore, psql)
   * against this server as the postgres user; throws on a non-zero exit. Returns its stdout.
   */
  client(command: string, args: string[]): string;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]]
      : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) {
      throw new Error(
        `${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`,
      );
    }
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let running = false;
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    stop(mode = 'fast') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    destroy() {
      if (running) cluster.stop('immediate');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    client(command, args) {
      const result = spawnSync(
        path.join(bin, command),
        ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', ...args],
        { encoding: 'utf8', timeout: 120_000 },
      );
      if (result.status !== 0) {
        throw new Error(
          `${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`,
        );
      }
      return result.stdout;
    },
  };
  cluster.start();
  return cluster;
}
