import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { TIERS, testFiles } from '../support/file-queue.ts';

it('every test file belongs to exactly one tier, and `all` is all of them', () => {
  const everyFile = testFiles(['test']).filter(
    // test/once holds suites with a PostgreSQL of their own (npm run test:once); test/tiers holds the queue workers.
    (file) => !file.startsWith('test/once/') && !file.startsWith('test/tiers/'),
  );
  const inTiers = [...TIERS.unit, ...TIERS.api, ...TIERS.browser].flatMap((folder) => testFiles([folder]));
  assert.deepEqual([...inTiers].sort(), everyFile);
  assert.equal(new Set(inTiers).size, inTiers.length);
  assert.deepEqual(testFiles(TIERS.all), everyFile);
});

it('each tier the package scripts run has its queue workers, one process each', () => {
  const scripts = JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
  const script = { api: 'test:api', browser: 'test:browser', all: 'test' } as const;
  for (const tier of ['api', 'browser', 'all'] as const) {
    const workers = fs.readdirSync('test/tiers').filter((file) => file.startsWith(`${tier}-`));
    assert.ok(workers.length >= 2, `${tier} has ${workers.length} workers`);
    for (const worker of workers) {
      const source = fs.readFileSync(`test/tiers/${worker}`, 'utf8');
      assert.match(source, new RegExp(`runTestQueue\\(TIERS\\.${tier}\\)`));
    }
    assert.match(
      scripts[script[tier]]!,
      new RegExp(`--test-concurrency=${workers.length} test/tiers/${tier}-\\*\\.test\\.ts`),
    );
  }
});

it('every operation of the four APIs has its test file, named like its route file', () => {
  const missing: string[] = [];
  for (const surface of ['integration', 'client', 'operator', 'dashboard']) {
    for (const route of fs.readdirSync(`src/${surface}/routes`)) {
      const test = `test/api/${surface}/${route.replace(/\.ts$/, '.test.ts')}`;
      if (!fs.existsSync(test)) missing.push(test);
    }
  }
  assert.deepEqual(
    missing,
    [],
    'each route file src/<surface>/routes/<name>.ts needs test/api/<surface>/<name>.test.ts',
  );
});
