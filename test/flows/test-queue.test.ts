import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const QUEUE_MODULE = path.resolve('test/support/file-queue.ts');

/** A folder of test files that log their names, and two queue processes over it, as `test/tiers/` holds. */
function fixture(files: Record<string, string>): { dir: string; log: string; workers: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-queue-test-'));
  const log = path.join(dir, 'ran.log');
  fs.mkdirSync(path.join(dir, 'suites', 'nested'), { recursive: true });
  for (const [name, body] of Object.entries(files)) {
    fs.writeFileSync(
      path.join(dir, 'suites', name),
      `import fs from 'node:fs';\nimport { after, it } from 'node:test';\n${body.replaceAll('LOG', JSON.stringify(log))}\n`,
    );
  }
  const workers = ['worker-1.test.ts', 'worker-2.test.ts'].map((name) => {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      `import { runTestQueue } from ${JSON.stringify(QUEUE_MODULE)};\nrunTestQueue([${JSON.stringify(path.join(dir, 'suites'))}]);\n`,
    );
    return file;
  });
  return { dir, log, workers };
}

async function runQueue(workers: string[]): Promise<{ code: number; stdout: string }> {
  // Not as a child of this test run: `node --test` inside one would not start a run of its own.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=tap', ...workers],
      { timeout: 120_000, env },
    );
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

function passing(name: string): string {
  return `it(${JSON.stringify(name)}, () => fs.appendFileSync(LOG, ${JSON.stringify(`${name}\n`)}));`;
}

describe('the test queue (two processes share one tier)', () => {
  it('runs every file exactly once per run, its hooks with it, and a second run runs them all again', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const files = Object.fromEntries(names.map((name) => [`${name}.test.ts`, passing(name)]));
    files['nested/g.test.ts'] = `${passing('g')}\nafter(() => fs.appendFileSync(LOG, 'g:after\\n'));`;
    const { dir, log, workers } = fixture(files);
    try {
      for (const run of [1, 2]) {
        const { code, stdout } = await runQueue(workers);
        // (A worker that found every file taken reports itself as one passing test: the pass count may be 8.)
        assert.equal(code, 0, stdout);
        assert.match(stdout, /^# fail 0$/m);
        const ran = fs.readFileSync(log, 'utf8').trim().split('\n').sort();
        const once = [...names, 'g', 'g:after'].sort();
        assert.deepEqual(ran, run === 1 ? once : [...once, ...once].sort());
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the run when a file fails or cannot be imported', async () => {
    const { dir, workers } = fixture({
      'ok.test.ts': passing('ok'),
      'broken.test.ts': `it('fails', () => { throw new Error('expected failure'); });`,
      'missing-import.test.ts': `import './does-not-exist.ts';\n${passing('never')}`,
    });
    try {
      const { code, stdout } = await runQueue(workers);
      assert.equal(code, 1);
      assert.match(stdout, /^ok \d+ - .*\/ok\.test\.ts$/m);
      assert.match(stdout, /^not ok \d+ - .*broken\.test\.ts$/m);
      // A file that cannot be imported fails as a suite (no test of it ran).
      assert.match(stdout, /^not ok \d+ - .*missing-import\.test\.ts$/m);
      assert.match(stdout, /expected failure/);
      assert.match(stdout, /does-not-exist/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
