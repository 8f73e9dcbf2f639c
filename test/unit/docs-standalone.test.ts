import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The published docs (README.md, docs/**.md and the example's README) stand alone: they state facts and never cite internal documents
 * (numbered sections or files a reader of rentpay cannot open), and every relative link to another page reaches a file
 * that exists.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs.sort(), path.join('examples', 'integrator', 'README.md')];
}

interface Line {
  file: string;
  number: number;
  text: string;
  inCode: boolean;
}

function lines(file: string): Line[] {
  let inCode = false;
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .map((text, i) => {
      const fence = /^\s*(```|~~~)/.test(text);
      if (fence) inCode = !inCode;
      return { file, number: i + 1, text, inCode: inCode || fence };
    });
}

/** The section sign and the word, spelled so that this file does not itself read as a citation. */
const SECTION = '\u00a7';
const SPEC = ['s', 'p', 'e', 'c'].join('');

/** Citations of internal documents. */
const CITATIONS: RegExp[] = [
  new RegExp(`contract\\s*${SECTION}`, 'i'),
  new RegExp(`${SECTION}\\s*\\d`),
  new RegExp(SECTION),
  new RegExp(`\\bthe ${SPEC}\\b`, 'i'),
  new RegExp(`service-${SPEC}`, 'i'),
  /contract\.md/i,
  /spec\.md/i,
  new RegExp(`\\b${SPEC}(ification)?\\s*${SECTION}`, 'i'),
  /\b(per|see|in) the (contract|specification)\b/i,
  /\bthe contract('s)? (section|says|requires)\b/i,
];

/** Public specifications a doc may name. */
const ALLOWED = [/Standard Webhooks specification/gi, /OpenAPI (3\.\d )?specification/gi];

function citation(text: string): RegExp | undefined {
  const cleaned = ALLOWED.reduce((line, allowed) => line.replace(allowed, ''), text);
  return CITATIONS.find((pattern) => pattern.test(cleaned));
}

/** `[text](target.md)`, `[text](target.md#anchor)`, `[text](target.md "title")` and `[ref]: target.md`. */
const INLINE_LINK = /\]\(\s*<?([^)\s>]+?\.md)(#[^)\s>]*)?>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_LINK = /^\s*\[[^\]]+\]:\s*<?(\S+?\.md)(#\S*)?>?(?:\s|$)/;

function mdLinks(text: string): string[] {
  const targets = [...text.matchAll(INLINE_LINK)].map((match) => match[1]!);
  const reference = REFERENCE_LINK.exec(text);
  if (reference) targets.push(reference[1]!);
  // Only relative links: not https://..., mailto:..., or a site-absolute /path.
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('/'));
}

describe('docs stand alone', () => {
  const files = markdownFiles();

  it('finds README.md and the docs', () => {
    assert.ok(files.includes('README.md'));
    assert.ok(files.includes(path.join('docs', 'webhooks.md')));
    assert.ok(files.length > 10, `only ${files.length} markdown files found`);
  });

  it('never cites internal documents', () => {
    const found = files.flatMap(lines).flatMap((line) => {
      const pattern = citation(line.text);
      return pattern ? [`${line.file}:${line.number}: ${pattern} in: ${line.text.trim()}`] : [];
    });
    assert.deepEqual(found, [], `internal documents cited:\n${found.join('\n')}`);
  });

  it('nor does the code: comments in src, web, migrations, bench, scripts and examples state their rules', () => {
    const code = ['src', 'web', 'migrations', 'bench', 'scripts', 'examples'].flatMap((dir) =>
      fs
        .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|tsx|mts|mjs|js|sql|css|html)$/.test(file))
        .filter((file) => !file.split(path.sep).some((part) => part === 'dist' || part === 'node_modules'))
        .map((file) => path.join(dir, file)),
    );
    assert.ok(code.length > 200, `only ${code.length} source files found`);
    const found = code.flatMap(lines).flatMap((line) => {
      const pattern = citation(line.text);
      return pattern ? [`${line.file}:${line.number}: ${pattern} in: ${line.text.trim()}`] : [];
    });
    assert.deepEqual(found, [], `internal documents cited:\n${found.join('\n')}`);
  });

  it('links only to pages that exist', () => {
    let checked = 0;
    const broken = files
      .flatMap(lines)
      .filter((line) => !line.inCode)
      .flatMap((line) =>
        mdLinks(line.text).flatMap((target) => {
          checked++;
          const resolved = path.join(ROOT, path.dirname(line.file), decodeURIComponent(target));
          return fs.existsSync(resolved) && fs.statSync(resolved).isFile()
            ? []
            : [`${line.file}:${line.number}: ${target} (no such file)`];
        }),
      );
    assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
    assert.ok(checked > 20, `only ${checked} relative .md links found`);
  });

  it('recognises a citation and a link', () => {
    assert.ok(citation(`As contract ${SECTION}4 says`));
    assert.ok(citation(`see ${SECTION}2.3`));
    assert.ok(citation(`Defined in the ${SPEC}.`));
    assert.ok(citation(`docs in /work/shared/${SPEC}/service-${SPEC}.md`));
    assert.equal(citation('Signed per the Standard Webhooks specification.'), undefined);
    assert.equal(citation('The OpenAPI specification is served at /docs.'), undefined);
    assert.equal(citation('A tenancy agreement is a contract between landlord and tenant.'), undefined);
    assert.deepEqual(
      mdLinks('[a](webhooks.md#retries), [b](../README.md "home"), [c](https://x.test/a.md)'),
      ['webhooks.md', '../README.md'],
    );
    assert.deepEqual(mdLinks('[ref]: payments.md#states'), ['payments.md']);
  });
});
