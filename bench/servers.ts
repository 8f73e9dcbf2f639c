import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaseData } from './cases.ts';
import type { ChildMessage } from './child.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(BENCH_DIR, '..');
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;
const TAIL_LINES = 40;

const running = new Set<ChildProcess>();

/** Last resort on exit or a signal: nothing the bench started may outlive it. */
export function killAllServers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export interface ServerProcess {
  pid: number;
  port: number;
  data: CaseData;
  stop(): Promise<void>;
}

/**
 * Starts bench/<file> in its own Node process (so the server under test and autocannon each get a core)
 * and waits for it to report its port.
 */
export function startServer(file: string, env: NodeJS.ProcessEnv, label: string): Promise<ServerProcess> {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the servers under load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(BENCH_DIR, file)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  const tail: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      // The server's own warnings go to stderr so stdout stays the table and the JSON line.
      process.stderr.write(`  [${label}] ${line}\n`);
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? -1 : null));
    });
  });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  return new Promise<ServerProcess>((resolve, reject) => {
    const fail = (message: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${label}: ${message}`));
    };
    const timer = setTimeout(
      () => fail(`did not report ready within ${START_TIMEOUT_MS / 1000}s`),
      START_TIMEOUT_MS,
    );
    child.on('error', (error) => fail(`could not start: ${error.message}`));
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve({ pid: child.pid!, port: message.port, data: message.data, stop });
      } else {
        fail(`failed to start:\n${message.message}`);
      }
    });
    void exited.then((code) => fail(`exited with code ${code} before it was ready\n${tail.join('\n')}`));
  });
}
