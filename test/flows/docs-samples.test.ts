/**
 * docs/quickstart.md, followed step by step against a real app, as a newcomer would: each curl command of the page runs
 * in bash with the real curl (the page's own text, heredoc and `$(date …)` included), `rentpay listen` and the page's
 * receiver.mjs run as child processes, and every answer marked `<!-- sample: NAME -->` is compared with the real one.
 * Ids, tokens and secrets are compared by shape (a prefix such as `pay_`) and must stand for the same real value
 * wherever the page repeats them; times and dates by shape; JSON by structure (same keys, same values).
 *
 * The page's ports are rentpay's 8080 and the receiver's 3000; the test runs both on free ports and maps them.
 * The tenant's payment on the hosted page is made through the Client API, exactly as the page makes it.
 *
 * Regenerate the samples after a change: UPDATE_DOC_SAMPLES=1 node --import tsx --test test/flows/docs-samples.test.ts
 * (rewrites only the samples that differ, keeping the page's ids; a normal run fails on any difference).
 */

import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bootstrapDeployment } from '../../src/bootstrap.ts';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import { runJobs, startTestApp, type TestApp } from '../support/helpers.ts';
import { freePort } from '../support/pg-cluster.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC_PATH = path.join(ROOT, 'docs', 'quickstart.md');
const UPDATE = process.env.UPDATE_DOC_SAMPLES === '1';
const WAIT_MS = 30_000;

/** The addresses the page shows: rentpay, and the reader's own webhook endpoint. */
const DOC_RENTPAY_URL = 'http://127.0.0.1:8080';
const DOC_RECEIVER_HOST = 'localhost:3000';

/** Values that depend on today's date or on the time a request took, beside ids and times. */
const VOLATILE_NUMBERS = new Set(['days_overdue', 'expires_in_seconds']);

/** Id and secret prefixes, longest first so that `tok_sandbox_…` is not read as `tok_…`. */
const ID_PREFIXES = [
  'ch_sandbox',
  'tok_sandbox',
  'rp_sandbox',
  'rp_ust',
  'card',
  'prun',
  'rpo',
  'dcl',
  'doc',
  'evt',
  'int',
  'job',
  'pay',
  'ref',
  'req',
  'sch',
  'ses',
  'ten',
  'tok',
  'usr',
  'po',
];
const TOKEN = new RegExp(
  [
    '(\\bwhsec_[A-Za-z0-9+/]+=*)',
    `(\\b(?:${ID_PREFIXES.join('|')})_[A-Za-z0-9]+)`,
    '(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z)',
    '(\\b\\d{4}-\\d{2}-\\d{2}\\b)',
  ].join('|'),
  'g',
);

type Token =
  | { kind: 'id'; prefix: string; value: string }
  | { kind: 'time' | 'date'; value: string }
  | { kind: 'text'; value: string };

function tokens(text: string): Token[] {
  const result: Token[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) result.push({ kind: 'text', value: text.slice(last, match.index) });
    const value = match[0];
    if (match[1] || match[2])
      result.push({ kind: 'id', prefix: value.slice(0, value.lastIndexOf('_')), value });
    else result.push({ kind: match[3] ? 'time' : 'date', value });
    last = match.index + value.length;
  }
  if (last < text.length) result.push({ kind: 'text', value: text.slice(last) });
  return result;
}

/** The page's ids and the real ones they stand for: one real value per page value, and the other way round. */
class IdMap {
  readonly docToReal = new Map<string, string>();
  readonly realToDoc = new Map<string, string>();

  bind(doc: string, real: string): string | undefined {
    const known = this.docToReal.get(doc);
    const knownDoc = this.realToDoc.get(real);
    if (known !== undefined && known !== real)
      return `${doc} stands for ${known} earlier on the page, here for ${real}`;
    if (knownDoc !== undefined && knownDoc !== doc)
      return `${real} is ${knownDoc} earlier on the page, here ${doc}`;
    this.docToReal.set(doc, real);
    this.realToDoc.set(real, doc);
    return undefined;
  }

  /** A real id as the page writes it: its page id, or (an id cut short) the same length of it; else itself. */
  toDoc(real: string): string {
    const known = this.realToDoc.get(real);
    if (known !== undefined) return known;
    for (const [fullReal, fullDoc] of this.realToDoc) {
      if (fullReal.startsWith(real) && fullDoc.length === fullReal.length)
        return fullDoc.slice(0, real.length);
    }
    return real;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The page: fenced blocks and the samples marked in it.

interface Block {
  lang: string;
  /** Line index of the opening fence; the content is the lines between the fences. */
  open: number;
  close: number;
  text: string;
}

interface Sample {
  name: string;
  block: Block;
  /** The fenced block just before the marker (only blank lines between), if any. */
  before: Block | undefined;
}

interface Page {
  lines: string[];
  blocks: Block[];
  samples: Sample[];
}

const MARKER = /^<!-- sample: ([a-z0-9-]+) -->\s*$/;

function parsePage(text: string): Page {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  const samples: Sample[] = [];
  let open: { lang: string; line: number } | undefined;
  let marker: { name: string; line: number } | undefined;
  lines.forEach((line, i) => {
    if (open) {
      if (/^```\s*$/.test(line)) {
        const block = {
          lang: open.lang,
          open: open.line,
          close: i,
          text: lines.slice(open.line + 1, i).join('\n'),
        };
        blocks.push(block);
        open = undefined;
        if (marker) {
          const previous = blocks.at(-2);
          const adjacent =
            previous !== undefined &&
            lines.slice(previous.close + 1, marker.line).every((l) => l.trim() === '');
          samples.push({ name: marker.name, block, before: adjacent ? previous : undefined });
          marker = undefined;
        }
      }
      return;
    }
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence) {
      if (marker && lines.slice(marker.line + 1, i).some((l) => l.trim() !== '')) {
        throw new Error(
          `quickstart.md:${marker.line + 1}: sample ${marker.name} is not followed by a fenced block`,
        );
      }
      open = { lang: fence[1]!, line: i };
      return;
    }
    const named = MARKER.exec(line);
    if (named) marker = { name: named[1]!, line: i };
  });
  if (open) throw new Error(`quickstart.md:${open.line + 1}: unclosed fence`);
  return { lines, blocks, samples };
}

const page = parsePage(fs.readFileSync(DOC_PATH, 'utf8'));

// ---------------------------------------------------------------------------------------------------------------
// Comparison.

const ids = new IdMap();
let realUrl = '';
let receiverPort = 0;

/** A real output in the page's terms: the page's addresses instead of the test's ports. */
function asOnPage(text: string): string {
  return text.replaceAll(realUrl, DOC_RENTPAY_URL).replaceAll(`localhost:${receiverPort}`, DOC_RECEIVER_HOST);
}

function compareText(doc: string, real: string, where: string): string[] {
  const a = tokens(doc);
  const b = tokens(real);
  const same =
    a.length === b.length &&
    a.every((token, i) => {
      const other = b[i]!;
      if (token.kind !== other.kind) return false;
      if (token.kind === 'text') return token.value === other.value;
      if (token.kind === 'id') return other.kind === 'id' && token.prefix === other.prefix;
      return true;
    });
  if (!same) return [`${where}: the page has\n    ${doc}\n  the service answered\n    ${real}`];
  const problems: string[] = [];
  a.forEach((token, i) => {
    if (token.kind !== 'id') return;
    const problem = ids.bind(token.value, b[i]!.value);
    if (problem) problems.push(`${where}: ${problem}`);
  });
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compareJson(doc: unknown, real: unknown, where: string, key = ''): string[] {
  if (Array.isArray(doc) && Array.isArray(real)) {
    const problems =
      doc.length === real.length
        ? []
        : [`${where}: ${doc.length} items on the page, ${real.length} in the answer`];
    for (let i = 0; i < Math.min(doc.length, real.length); i++) {
      problems.push(...compareJson(doc[i], real[i], `${where}[${i}]`));
    }
    return problems;
  }
  if (isObject(doc) && isObject(real)) {
    const problems: string[] = [];
    const missing = Object.keys(real).filter((k) => !(k in doc));
    const extra = Object.keys(doc).filter((k) => !(k in real));
    if (missing.length > 0) problems.push(`${where}: the page lacks ${missing.join(', ')}`);
    if (extra.length > 0) problems.push(`${where}: the answer has no ${extra.join(', ')}`);
    for (const k of Object.keys(doc)) {
      if (k in real) problems.push(...compareJson(doc[k], real[k], `${where}.${k}`, k));
    }
    return problems;
  }
  if (typeof doc === 'string' && typeof real === 'string') return compareText(doc, real, where);
  if (typeof doc === 'number' && typeof real === 'number' && VOLATILE_NUMBERS.has(key)) return [];
  return doc === real
    ? []
    : [`${where}: the page has ${JSON.stringify(doc)}, the answer ${JSON.stringify(real)}`];
}

/** Every string in a JSON value through `change`. */
function mapStrings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === 'string') return change(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, change)]));
  }
  return value;
}

/** A real text with the page's ids where the page has them (update mode). */
function withPageIds(text: string): string {
  return tokens(text)
    .map((token) => (token.kind === 'id' ? ids.toDoc(token.value) : token.value))
    .join('');
}

function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  if (isObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inlineJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/**
 * JSON as the page shows a long answer: a member on one line when it fits in 100 columns, or in 130 when it is a
 * flat object (a ledger entry, a card).
 */
function prettyJson(value: unknown, indent = '', lead = 0): string {
  const inline = inlineJson(value);
  const flat =
    isObject(value) && Object.values(value).every((member) => !isObject(member) && !Array.isArray(member));
  const width = indent.length + lead + inline.length;
  if (width <= 100 || (flat && width <= 130) || !(Array.isArray(value) || isObject(value))) return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => inner + prettyJson(item, inner)).join(',\n')}\n${indent}]`;
  }
  const members = Object.entries(value).map(([k, v]) => {
    const name = `${JSON.stringify(k)}: `;
    return inner + name + prettyJson(v, inner, name.length);
  });
  return `{\n${members.join(',\n')}\n${indent}}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Running the page's commands.

/** The service's clock: the real time, as for a reader (the tests' FakeClock type, without faking). */
class RealClock extends FakeClock {
  override now(): Date {
    return new Date();
  }
}

let t: TestApp;
let serverToken = '';
let workDir = '';
const answers = new Map<string, unknown>();
const replacements: { block: Block; text: string }[] = [];
const children: Background[] = [];
const execFileAsync = promisify(execFile);

function env(): NodeJS.ProcessEnv {
  const values: NodeJS.ProcessEnv = {
    ...process.env,
    RENTPAY_URL: realUrl,
    RENTPAY_SERVER_TOKEN: serverToken,
  };
  delete values.RENTPAY_OPERATOR_TOKEN;
  // curl reaches this machine directly, whatever proxy the environment names.
  const noProxy = ['127.0.0.1', 'localhost', values.NO_PROXY ?? values.no_proxy].filter(Boolean).join(',');
  values.NO_PROXY = noProxy;
  values.no_proxy = noProxy;
  return values;
}

/** A command of the page, ready to run here: the real ids for the page's, and the test's receiver port. */
function runnable(command: string): string {
  const unknown: string[] = [];
  const text = tokens(command)
    .map((token) => {
      if (token.kind !== 'id') return token.value;
      const real = ids.docToReal.get(token.value);
      if (real === undefined) unknown.push(token.value);
      return real ?? token.value;
    })
    .join('');
  assert.deepEqual(unknown, [], `the command uses ids that no earlier answer on the page shows:\n${command}`);
  return text.replaceAll(DOC_RECEIVER_HOST, `localhost:${receiverPort}`);
}

/** A command left running (`listen`, the receiver), with its output read line by line as it comes. */
class Background {
  #output = '';
  #errors = '';
  #read = 0;
  #exited = false;
  #wake: (() => void)[] = [];
  readonly child: ChildProcess;

  constructor(script: string, cwd: string) {
    this.child = spawn('bash', ['-c', script], {
      cwd,
      env: env(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (chunk: Buffer) => {
      this.#output += chunk.toString('utf8');
      for (const wake of this.#wake.splice(0)) wake();
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.#errors += chunk.toString('utf8');
    });
    this.child.on('exit', () => {
      this.#exited = true;
      for (const wake of this.#wake.splice(0)) wake();
    });
    children.push(this);
  }

  /** The next `count` lines it prints. */
  async lines(count: number, what: string): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const fresh = this.#output.slice(this.#read).split('\n');
      if (fresh.length > count) {
        const taken = fresh.slice(0, count).join('\n');
        this.#read += taken.length + 1;
        return taken;
      }
      if (this.#exited) throw new Error(`${what} exited: ${this.#output}${this.#errors}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${what} printed no ${count} new line(s) in ${WAIT_MS} ms: ${this.#output}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  stop(): void {
    if (this.#exited || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

let listen: Background | undefined;
let receiver: Background | undefined;

function blockBefore(sample: Sample, lang: string, what: string): Block {
  assert.ok(
    sample.before?.lang === lang,
    `sample ${sample.name}: ${what} must be the ${lang} block just before it`,
  );
  return sample.before;
}

/** The tenant on the hosted page: the card tokenised at the sandbox processor, then paid as the page pays. */
async function payOnThePage(): Promise<void> {
  const login = answers.get('login') as { token: string } | undefined;
  assert.ok(login, 'the page opens a session (sample "login") before the tenant pays');
  const headers = { authorization: `Bearer ${login.token}`, 'content-type': 'application/json' };
  const session = await (await fetch(`${realUrl}/api/client/session`, { headers })).json();
  // What the page shows: this month's rent, due since the 1st, and nothing older.
  const firstOfMonth = `${new Date().toISOString().slice(0, 7)}-01`;
  assert.equal(session.tenancy.start_rent_date, firstOfMonth);
  assert.equal(session.tenancy.ledger.arrears, '1200.00');
  assert.equal(session.tenancy.ledger.unpaid[0].date, firstOfMonth);
  const card = await fetch(`${realUrl}/sandbox/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' }),
  });
  assert.equal(card.status, 201);
  const paid = await fetch(`${realUrl}/api/client/payments`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'quickstart-pay-1' },
    body: JSON.stringify({ pure_amount: '1200.00', method: 'card', card_token: (await card.json()).token }),
  });
  const payment = await paid.json();
  assert.equal(payment.status, 'succeeded', JSON.stringify(payment));
}

/** What the reader does before a sample that no command of the page produces. */
const ACTIONS: Record<string, () => Promise<void>> = { 'payment-webhook': payOnThePage };

/** Runs the step a sample shows and answers what the service really printed. */
async function realOutput(sample: Sample, expectedLines: number): Promise<string> {
  const { name } = sample;
  if (name === 'listen-ready') {
    const command = blockBefore(sample, 'sh', 'the rentpay listen command');
    assert.match(command.text, /rentpay listen/);
    listen = new Background(runnable(command.text), ROOT);
    return listen.lines(expectedLines, 'rentpay listen');
  }
  if (name === 'receiver-ready') {
    const command = blockBefore(sample, 'sh', 'the command that starts receiver.mjs');
    const code = page.blocks.filter((block) => block.lang === 'js' && block.close < sample.block.open).at(-1);
    assert.ok(code && /new Webhook\(/.test(code.text), 'receiver.mjs is the js block before receiver-ready');
    fs.writeFileSync(path.join(workDir, 'receiver.mjs'), code.text.replaceAll('3000', String(receiverPort)));
    receiver = new Background(runnable(command.text).replace(/\s*&\s*$/, ''), workDir);
    return receiver.lines(expectedLines, 'receiver.mjs');
  }
  if (name.endsWith('-forwarded')) {
    assert.ok(listen, `sample ${name}: rentpay listen runs (sample listen-ready) before it`);
    return listen.lines(expectedLines, 'rentpay listen');
  }
  if (name.endsWith('-webhook')) {
    assert.ok(receiver, `sample ${name}: receiver.mjs runs (sample receiver-ready) before it`);
    await ACTIONS[name]?.();
    return receiver.lines(expectedLines, 'receiver.mjs');
  }
  const command = blockBefore(sample, 'sh', 'the curl command');
  assert.match(command.text, /\bcurl\b/, `sample ${name}: the block before it runs no curl`);
  const { stdout } = await execFileAsync('bash', ['-c', runnable(command.text)], {
    cwd: workDir,
    env: env(),
    timeout: WAIT_MS,
  });
  return stdout;
}

describe('docs/quickstart.md, step by step against the real service', () => {
  before(async () => {
    const appPort = await freePort();
    receiverPort = await freePort();
    realUrl = `http://127.0.0.1:${appPort}`;
    // The page's dates are this month's (`date -u` in the shell): the service's clock is the real one too.
    t = await startTestApp({ clock: new RealClock(), config: { publicUrl: realUrl } });
    await t.app.listen({ port: appPort, host: '127.0.0.1' });
    // What `npm start` does on a first start: the demo integrator whose server token the page exports.
    const secrets = await bootstrapDeployment(t.app);
    assert.ok(secrets.demo, 'a first start in sandbox creates the demo integrator');
    serverToken = secrets.demo.serverToken;
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rentpay-quickstart-'));
    // receiver.mjs sits in the rentpay folder on the page: it imports standardwebhooks from there.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(workDir, 'node_modules'), 'dir');
  });

  after(async () => {
    for (const child of children) child.stop();
    await t?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    if (UPDATE && replacements.length > 0) {
      const lines = [...page.lines];
      for (const { block, text } of replacements.sort((a, b) => b.block.open - a.block.open)) {
        lines.splice(block.open + 1, block.close - block.open - 1, ...text.split('\n'));
      }
      fs.writeFileSync(DOC_PATH, lines.join('\n'));
    }
  });

  it('marks an answer after every curl command, and has no curl command outside a code block', () => {
    const sampled = new Set(page.samples.flatMap((sample) => (sample.before ? [sample.before] : [])));
    const unanswered = page.blocks
      .filter((block) => block.lang === 'sh' && /\bcurl\b/.test(block.text) && !sampled.has(block))
      .map((block) => `quickstart.md:${block.open + 1}: ${block.text.split('\n')[0]}`);
    assert.deepEqual(unanswered, [], 'each curl block is followed by <!-- sample: NAME --> and its answer');
    const inCode = new Set(page.blocks.flatMap((block) => range(block.open, block.close + 1)));
    const inline = page.lines
      .map((line, i) => ({ line, i }))
      .filter(({ line, i }) => !inCode.has(i) && /`curl /.test(line))
      .map(({ line, i }) => `quickstart.md:${i + 1}: ${line}`);
    assert.deepEqual(
      inline,
      [],
      'a curl command in the text cannot be checked: put it in a block with its answer',
    );
    assert.deepEqual(
      Object.keys(ACTIONS).filter((name) => !page.samples.some((sample) => sample.name === name)),
      [],
      'the page shows the tenant paying (sample payment-webhook)',
    );
  });

  for (const sample of page.samples) {
    it(`sample ${sample.name} (quickstart.md:${sample.block.open + 1})`, async () => {
      const docText = sample.block.text;
      const expectedLines = Math.max(1, docText === '' ? 0 : docText.split('\n').length);
      const raw = await realOutput(sample, expectedLines);
      const real = asOnPage(raw);
      let problems: string[];
      let rewritten: string;
      if (sample.block.lang === 'json') {
        let realJson: unknown;
        try {
          realJson = JSON.parse(real);
        } catch {
          assert.fail(`sample ${sample.name}: the answer is not JSON: ${real}`);
        }
        answers.set(sample.name, JSON.parse(raw));
        let docJson: unknown;
        try {
          docJson = JSON.parse(docText);
        } catch {
          docJson = undefined;
        }
        problems = compareJson(docJson, realJson, sample.name);
        const onPage = mapStrings(realJson, withPageIds);
        rewritten = docText.trim().includes('\n') ? prettyJson(onPage) : JSON.stringify(onPage);
      } else {
        const trimmed = real.replace(/\n+$/, '');
        problems = compareText(docText, trimmed, sample.name);
        rewritten = withPageIds(trimmed);
      }
      // The service's own work between steps, as its worker does within a second (the agreement's fetch).
      await runJobs(t);
      if (problems.length === 0) return;
      if (UPDATE) {
        replacements.push({ block: sample.block, text: rewritten });
        return;
      }
      assert.fail(
        `docs/quickstart.md differs from the service at sample ${sample.name}:\n  ${problems.join('\n  ')}\n` +
          'If the service is right, regenerate: UPDATE_DOC_SAMPLES=1 node --import tsx --test test/flows/docs-samples.test.ts',
      );
    });
  }

  it('shows no id that the answers do not (the page URL, the commands and the text use the answers’ ids)', () => {
    const inSamples = new Set(
      page.samples.flatMap((sample) => range(sample.block.open, sample.block.close + 1)),
    );
    const strays = page.lines.flatMap((line, i) =>
      inSamples.has(i)
        ? []
        : tokens(line)
            .filter((token) => token.kind === 'id' && token.prefix !== 'rp_sandbox')
            .filter((token) => !ids.docToReal.has(token.value))
            .map((token) => `quickstart.md:${i + 1}: ${token.value}`),
    );
    // The server token (rp_sandbox_…) is printed by the first start, which no answer repeats.
    assert.deepEqual(strays, [], 'ids on the page that no answer gave (copy them from the answers)');
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
