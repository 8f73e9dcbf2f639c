import { AsyncResource } from 'node:async_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import { pathToFileURL } from 'node:url';

/**
 * The test tiers, as folders of `*.test.ts` files. A tier runs in a few long-lived processes (the files of
 * `test/tiers/`, started side by side by `node --test`) that take its files from one shared queue, slowest first:
 * a process imports the app, compiles PGlite and warms its JIT once instead of once per file, and its databases are
 * reused (test/support/pglite-pool.ts). Each file is a suite named by its path; `npm run test:one <file>` still runs
 * one file on its own.
 */
export const TIERS = {
  unit: ['test/unit'],
  api: ['test/api', 'test/flows'],
  browser: ['test/browser'],
  all: ['test/unit', 'test/api', 'test/flows', 'test/browser'],
} as const;

const ROOT = path.resolve(import.meta.dirname, '../..');
const DURATIONS_DIR = path.join(os.tmpdir(), 'rentpay-test-durations');

/** The `*.test.ts` files under the folders (relative to the checkout, or absolute), as the folders name them. */
export function testFiles(folders: readonly string[]): string[] {
  const files: string[] = [];
  for (const folder of folders) {
    for (const entry of fs.readdirSync(path.resolve(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
      if (entry.endsWith('.test.ts')) files.push(path.posix.join(folder, entry.split(path.sep).join('/')));
    }
  }
  return files.sort();
}

/** Slowest first, by the last recorded run on this machine; a file never timed counts as slow (browser first). */
function slowestFirst(files: string[]): string[] {
  const known = (file: string) => {
    const text = fs.readFileSync(durationFile(file), { encoding: 'utf8', flag: 'a+' });
    return text ? Number(text) : undefined;
  };
  fs.mkdirSync(DURATIONS_DIR, { recursive: true });
  const cost = new Map(
    files.map((file) => [file, known(file) ?? (file.startsWith('test/browser/') ? 2e6 : 1e6)] as const),
  );
  return [...files].sort((a, b) => cost.get(b)! - cost.get(a)! || a.localeCompare(b));
}

function durationFile(file: string): string {
  return path.join(DURATIONS_DIR, pathKey(file));
}

function pathKey(file: string): string {
  return file.replaceAll(/[^\w.-]+/g, '__');
}

/**
 * The queue this run's processes share: named by the `node --test` process that started them (its pid and start
 * time), so a later run never sees its claims. Outside `node --test` there is no queue: this process runs every file.
 */
function sharedQueue(folders: readonly string[]): string | undefined {
  if (!process.env.NODE_TEST_CONTEXT) return undefined;
  let started = '';
  try {
    started = fs.readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  } catch {
    started = 'unknown';
  }
  const dir = path.join(
    os.tmpdir(),
    `rentpay-test-queue-${process.ppid}-${started}-${pathKey(folders.join('+'))}`,
  );
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function claim(queue: string | undefined, file: string): boolean {
  if (!queue) return true;
  try {
    fs.closeSync(fs.openSync(path.join(queue, pathKey(file)), 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Created at the top of the module, outside any test: suites started in it belong to the root, not to the last. */
const topLevel = new AsyncResource('rentpay-test-queue');

/** Runs the folders' test files that no other process of this run has taken, one at a time, each as a suite. */
export function runTestQueue(folders: readonly string[]): void {
  const queue = sharedQueue(folders);
  const files = slowestFirst(testFiles(folders));
  void (async () => {
    for (const file of files) {
      if (!claim(queue, file)) continue;
      const started = performance.now();
      await topLevel.runInAsyncScope(() =>
        describe(file, async () => {
          await import(pathToFileURL(path.resolve(ROOT, file)).href);
        }),
      );
      fs.writeFileSync(durationFile(file), String(Math.round(performance.now() - started)));
    }
  })();
}
