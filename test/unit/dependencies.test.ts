/**
 * The direction of dependencies, checked on every import of src/ and web/ (static and dynamic):
 * platform (plumbing) imports nothing of rentpay's own but platform; shared (vocabulary) only shared; the domains
 * import platform, shared and each other (one way only: no cycles, and never another's routes or job handlers),
 * never a surface (an API, the page, the CLI) or the composition root;
 * the browser code imports only the shared vocabulary from src. And the layout the checks rely on: each route file of
 * an API holds one operation and is named after it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The domains: the rules of rent and money, each behind its service functions. */
export const DOMAINS = [
  'audit',
  'cards',
  'documents',
  'integrators',
  'ledger',
  'onboarding',
  'payments',
  'payouts',
  'people',
  'processors',
  'receipts',
  'schedules',
  'sessions',
  'webhooks',
];
/** The surfaces: what people and programs reach (the APIs, the page, the SDK, the CLI, the demo, the smoke run). */
export const SURFACES = [
  'cli',
  'client',
  'dashboard',
  'demo',
  'health',
  'integration',
  'operator',
  'page',
  'sandbox',
  'sdk',
  'smoke',
];
/** The composition root: builds the app, wires the services once, runs the processes. */
const ROOT_FILES = ['app.ts', 'app-context.ts', 'bootstrap.ts', 'jobs.ts', 'runtime.ts', 'services.ts'];
const LAYERS = ['platform', 'shared'];

/** What is in src/ that no list above names: each new folder or root file must be classified here first. */
export function unclassified(entries: readonly { name: string; isDirectory(): boolean }[]): string[] {
  return entries
    .filter((entry) =>
      entry.isDirectory()
        ? !DOMAINS.includes(entry.name) && !SURFACES.includes(entry.name) && !LAYERS.includes(entry.name)
        : !ROOT_FILES.includes(entry.name),
    )
    .map((entry) => entry.name);
}

/** The surfaces that are APIs: each route file in src/<surface>/routes/ holds one operation. */
const API_SURFACES = ['integration', 'client', 'operator', 'dashboard'];

/**
 * What is wrong with a route file of an API, by its text: it must hold exactly one `operationId:`, a string literal
 * whose kebab-case is the file's name (`approvePayee` in approve-payee.ts). Shared schemas and handlers live beside
 * routes/, not in it.
 */
export function routeFileProblems(fileName: string, text: string): string[] {
  const values = [...text.matchAll(/\boperationId\s*:\s*([^\n]*)/g)].map((match) => match[1]!);
  if (values.length !== 1) {
    return [
      `${fileName} has ${values.length} operationIds: one operation per file (shared code goes beside routes/)`,
    ];
  }
  const literal = /^(['"])([a-z][A-Za-z0-9]*)\1\s*(?:[,}]|$)/.exec(values[0]!);
  if (!literal) {
    return [`${fileName}: its operationId is not a string literal: ${values[0]!.replace(/,\s*$/, '')}`];
  }
  const expected = `${literal[2]!.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.ts`;
  return fileName === expected ? [] : [`${fileName} holds ${literal[2]}: name it ${expected}`];
}

interface Import {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'dist' && entry.name !== 'node_modules') found.push(...sourceFiles(relative));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      found.push(relative);
    }
  }
  return found;
}

/** Every relative import of a file (import/export ... from, import(), side-effect imports), as a path from ROOT. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"](\.[^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s*['"](\.[^'"]+)['"]/gm),
  ].map((match) => match[1]!);
  return specifiers.map((specifier) => ({
    from: file,
    to: path.normalize(path.join(path.dirname(file), specifier)),
  }));
}

/** The part of the code a path belongs to: "platform", "shared", a domain or surface name, "root", or "outside". */
function partOf(file: string): string {
  const [top, second] = file.split(path.sep);
  if (top === 'web') return 'web';
  if (top !== 'src' || second === undefined) return 'outside';
  if (ROOT_FILES.includes(second)) return 'root';
  return second;
}

const allImports = [...sourceFiles('src'), ...sourceFiles('web')].flatMap(importsOf);

function violations(rule: (from: string, to: string, imported: Import) => boolean): string[] {
  return allImports
    .filter((imported) => rule(partOf(imported.from), partOf(imported.to), imported))
    .map(({ from, to }) => `${from} -> ${to}`);
}

describe('dependency direction', () => {
  it('every folder and file in src/ is classified as a layer, a domain, a surface or the composition root', () => {
    assert.deepEqual(unclassified(fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })), []);
    const folder = (name: string) => ({ name, isDirectory: () => true });
    assert.deepEqual(unclassified([folder('payments'), folder('invoices')]), ['invoices']);
  });

  it('routes live in the surfaces; a domain registers none (a processor only the provider’s own endpoints)', () => {
    const routeFiles = DOMAINS.flatMap((domain) => sourceFiles(path.join('src', domain))).filter(
      (file) =>
        /\bapp\.(get|post|put|patch|delete|route)\(|FastifyPluginAsync/.test(
          fs.readFileSync(path.join(ROOT, file), 'utf8'),
        ) && !file.startsWith(path.join('src', 'processors') + path.sep),
    );
    assert.deepEqual(routeFiles, []);
  });

  it('finds the imports it checks (the parser sees static, dynamic and type imports)', () => {
    assert.ok(allImports.length > 500, `only ${allImports.length} imports found`);
    for (const part of ['platform', 'shared', 'web', 'root', ...DOMAINS, ...SURFACES]) {
      assert.ok(
        allImports.some((imported) => partOf(imported.from) === part || partOf(imported.to) === part),
        `no imports found from or to ${part}`,
      );
    }
    assert.ok(
      allImports.some(
        (imported) => imported.from === path.join('src', 'app.ts') && imported.to.includes('demo'),
      ),
    );
  });

  it('platform imports nothing of rentpay but platform', () => {
    assert.deepEqual(
      violations((from, to) => from === 'platform' && to !== 'platform'),
      [],
    );
  });

  it('shared imports nothing but shared', () => {
    assert.deepEqual(
      violations((from, to) => from === 'shared' && to !== 'shared'),
      [],
    );
  });

  it('no domain imports a surface (an API, the page, the SDK, the CLI, the demo) or the composition root', () => {
    assert.deepEqual(
      violations((from, to) => DOMAINS.includes(from) && (SURFACES.includes(to) || to === 'root')),
      [],
    );
  });

  it('surfaces import the domains, platform and shared, never one another', () => {
    assert.deepEqual(
      violations(
        (from, to) => SURFACES.includes(from) && from !== 'cli' && SURFACES.includes(to) && to !== from,
      ),
      [],
    );
  });

  it('the browser code takes only the shared vocabulary from src', () => {
    assert.deepEqual(
      violations(
        (from, to, imported) =>
          from === 'web' && to !== 'web' && !imported.to.startsWith(path.join('src', 'shared') + path.sep),
      ),
      [],
    );
  });

  it('src imports nothing outside src, except the composition root handing the example integrator to the demo', () => {
    const demoExample = path.join('examples', 'integrator', 'handler.mjs');
    assert.deepEqual(
      violations(
        (from, to, imported) =>
          from !== 'web' &&
          from !== 'outside' &&
          to === 'outside' &&
          !(from === 'root' && imported.to === demoExample),
      ),
      [],
    );
  });

  it('no two domains import each other, even through a third: the domains form a hierarchy', () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to } of allImports) {
      const [source, target] = [partOf(from), partOf(to)];
      if (source !== target && DOMAINS.includes(source) && DOMAINS.includes(target)) {
        edges.set(source, (edges.get(source) ?? new Set()).add(target));
      }
    }
    assert.ok(edges.size >= 5, 'the domains do use one another');
    const cycles: string[] = [];
    const reach = (start: string, at: string, trail: string[], seen: Set<string>) => {
      for (const next of edges.get(at) ?? []) {
        if (next === start) cycles.push([...trail, next].join(' -> '));
        else if (!seen.has(next)) reach(start, next, [...trail, next], seen.add(next));
      }
    };
    for (const domain of DOMAINS) reach(domain, domain, [domain], new Set());
    assert.deepEqual(cycles, []);
  });

  it("a domain uses another's services, schemas, rules and job definitions (to enqueue them), never its routes", () => {
    assert.deepEqual(
      violations(
        (from, to, imported) =>
          DOMAINS.includes(from) &&
          DOMAINS.includes(to) &&
          from !== to &&
          imported.to.split(path.sep).includes('routes'),
      ),
      [],
    );
  });

  it('every job is defined with defineJob, one kind per file, and enqueued through its definition', () => {
    const jobFiles = sourceFiles('src').filter((file) =>
      fs.readFileSync(path.join(ROOT, file), 'utf8').includes('= defineJob('),
    );
    for (const file of jobFiles) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      assert.equal(text.split('= defineJob(').length - 1, 1, `${file} defines one job`);
    }
    assert.ok(jobFiles.length >= 15, `only ${jobFiles.length} job files`);
    // Outside platform/jobs, jobs are written by enqueue/enqueueMany (typed payload), not by kind and a loose object.
    const loose = sourceFiles('src').filter(
      (file) =>
        partOf(file) !== 'platform' &&
        /\benqueueJobs?\(/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
    );
    assert.deepEqual(loose, []);
  });

  it('hand-asserted row types (`query<Row>(sql)`) outside platform/db only shrink, as queries move to the typed builder', () => {
    // Built queries (qb, rows, firstRow) are typed by the generated tables; each hand-written query asserts its row
    // type. This ceiling is lowered as queries move over, never raised: a new query uses the builder, or hand-written
    // SQL behind a typed function in platform/db.
    const CEILING = 0;
    const asserted = sourceFiles('src')
      .filter((file) => partOf(file) !== 'platform' || !file.startsWith(path.join('src', 'platform', 'db')))
      .reduce(
        (count, file) =>
          count + (fs.readFileSync(path.join(ROOT, file), 'utf8').match(/\bquery<(?!Row\b)/g)?.length ?? 0),
        0,
      );
    assert.ok(
      asserted <= CEILING,
      `${asserted} hand-asserted row types outside platform/db (ceiling ${CEILING})`,
    );
    assert.ok(asserted > CEILING - 20, `${asserted}: lower the ceiling to ${asserted}`);
  });

  it('every table has one writer: each INSERT, UPDATE and DELETE target is written from one part only', () => {
    const writers = new Map<string, Set<string>>();
    for (const file of sourceFiles('src')) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      // Hand-written SQL, and the query builder's insertInto('t') / updateTable('t') / deleteFrom('t').
      const written =
        /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b|\b(?:insertInto|updateTable|deleteFrom)\('([a-z_]+)'/g;
      for (const match of text.matchAll(written)) {
        const table = (match[1] ?? match[2])!;
        if (table === 'SET') continue;
        writers.set(table, (writers.get(table) ?? new Set()).add(partOf(file)));
      }
    }
    assert.ok(writers.size >= 20, `only ${writers.size} written tables found`);
    for (const [table, owner] of [
      ['payments', 'payments'],
      ['jobs', 'platform'],
      ['sessions', 'sessions'],
      ['documents', 'documents'],
    ]) {
      assert.deepEqual([...(writers.get(table!) ?? [])], [owner], `${table} is written by ${owner}`);
    }
    const shared = [...writers]
      .filter(([, parts]) => parts.size > 1)
      .map(([table, parts]) => `${table}: ${[...parts].join(', ')}`);
    assert.deepEqual(shared, [], 'tables written from more than one part (move the write into its owner)');
  });

  it('every route file of an API holds one operation and is named after its operationId', () => {
    const problems: string[] = [];
    for (const surface of API_SURFACES) {
      const files = sourceFiles(path.join('src', surface, 'routes'));
      assert.ok(files.length >= 10, `only ${files.length} route files in src/${surface}/routes`);
      for (const file of files) {
        problems.push(
          ...routeFileProblems(path.basename(file), fs.readFileSync(path.join(ROOT, file), 'utf8')).map(
            (problem) => `src/${surface}/routes/${problem}`,
          ),
        );
      }
    }
    assert.deepEqual(problems, []);
    // The check fails where it should: two operations, a computed operationId, a name that is not the operation's.
    const op = (id: string) =>
      `  app.post('/x', {\n    schema: {\n      operationId: ${id},\n      tags: ['X'],\n`;
    assert.deepEqual(routeFileProblems('approve-payee.ts', op("'approvePayee'")), []);
    assert.deepEqual(routeFileProblems('payouts.ts', op("'approvePayee'") + op("'reconcilePayouts'")), [
      'payouts.ts has 2 operationIds: one operation per file (shared code goes beside routes/)',
    ]);
    assert.deepEqual(routeFileProblems('helpers.ts', 'export const Params = {};\n'), [
      'helpers.ts has 0 operationIds: one operation per file (shared code goes beside routes/)',
    ]);
    const computed = "action === 'confirm' ? 'confirmPayoutRun' : 'cancelPayoutRun'";
    assert.deepEqual(routeFileProblems('confirm-payout-run.ts', op(computed)), [
      `confirm-payout-run.ts: its operationId is not a string literal: ${computed}`,
    ]);
    assert.deepEqual(routeFileProblems('get-payment.ts', "{ operationId: 'getPayment' }"), []);
    assert.deepEqual(routeFileProblems('payees.ts', op("'approvePayee'")), [
      'payees.ts holds approvePayee: name it approve-payee.ts',
    ]);
  });

  it('routes use the services the composition root built: no database handle, no service built per route', () => {
    const routeFiles = SURFACES.flatMap((surface) => sourceFiles(path.join('src', surface))).filter((file) =>
      file.split(path.sep).includes('routes'),
    );
    assert.ok(routeFiles.length >= 30, `only ${routeFiles.length} route files`);
    const offending = routeFiles.filter((file) =>
      /\bctx\.db\b|\bnew [A-Z]\w*Service\(/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
    );
    assert.deepEqual(offending, []);
  });
});
