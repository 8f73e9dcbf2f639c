// Copies the server's non-TypeScript files (the sandbox pages' script and styles) next to the compiled JavaScript
// in dist/ (or the folder given), where the compiled modules look for them.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const from = path.join(root, 'src');
const to = path.resolve(process.argv[2] ?? path.join(root, 'dist'));

for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const source = path.join(entry.parentPath, entry.name);
  const target = path.join(to, path.relative(from, source));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
}
