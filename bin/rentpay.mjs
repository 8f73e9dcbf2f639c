#!/usr/bin/env node
// In a checkout with dev dependencies the CLI runs the TypeScript sources through tsx's loader (no build step
// between `npm ci` and use). A production install (`npm ci --omit=dev`) has no tsx: it runs the compiled
// JavaScript that `npm run build` wrote to dist/.
import fs from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);

let tsx;
try {
  tsx = await import('tsx/esm/api');
} catch {
  tsx = undefined;
}
if (tsx && fs.existsSync(sources)) {
  tsx.register();
  await import(sources.href);
} else if (fs.existsSync(compiled)) {
  await import(compiled.href);
} else {
  process.stderr.write(
    'rentpay: dist/ is missing; run `npm run build` first (or install the dev dependencies).\n',
  );
  process.exit(1);
}
