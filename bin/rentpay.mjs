#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (`npm run build`; `npm start` builds it) when it is at least as new as every
// source file: no TypeScript is compiled per call. A checkout whose sources changed since the last build runs them
// through tsx's loader instead (a dev dependency). A production install (`npm ci --omit=dev`) has only dist/.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../src/', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);

/** The newest modification time of the .ts files under `dir`, or 0 when there are none. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    newest = Math.max(newest, fs.statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return newest;
}

const compiledAt = fs.statSync(compiled, { throwIfNoEntry: false })?.mtimeMs;
const sourcesPath = fileURLToPath(sources);
const hasSources = fs.existsSync(sourcesPath);

if (compiledAt !== undefined && (!hasSources || compiledAt >= newestSource(sourcesPath))) {
  await import(compiled.href);
} else {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    tsx = undefined;
  }
  if (tsx && hasSources) {
    tsx.register();
    await import(new URL('cli/main.ts', sources).href);
  } else if (compiledAt !== undefined) {
    await import(compiled.href);
  } else {
    process.stderr.write(
      'rentpay: dist/ is missing; run `npm run build` first (or install the dev dependencies).\n',
    );
    process.exit(1);
  }
}
