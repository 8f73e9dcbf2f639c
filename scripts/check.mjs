// `npm test`'s first step: lint, both typechecks and the build in two lanes side by side instead of one after another
// (the server's typecheck alone takes about as long as the rest together). The build's server part skips the
// typecheck (`--noCheck`): the typecheck in the other lane checks the same files. Each command's output is printed
// when it fails (all of it with CHECK_VERBOSE=1); the exit code is 1 when any failed. A lane stops at its first
// failure.
import { spawn } from 'node:child_process';

const lanes = [
  [['typecheck (server, tests)', 'npx tsc --noEmit -p .']],
  [
    ['lint', 'npm run -s lint'],
    ['typecheck (web)', 'npx tsc --noEmit -p web'],
    [
      'build',
      'npm run build:web && npx tsc -p tsconfig.build.json --noCheck && node scripts/copy-server-assets.mjs',
    ],
  ],
];

const started = performance.now();

function run(name, command) {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output += chunk;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`== ${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} after ${seconds} s\n`);
      if (code !== 0 || process.env.CHECK_VERBOSE) process.stdout.write(output);
      resolve(code === 0);
    });
  });
}

const passed = await Promise.all(
  lanes.map(async (lane) => {
    for (const [name, command] of lane) if (!(await run(name, command))) return false;
    return true;
  }),
);
process.exitCode = passed.every(Boolean) ? 0 : 1;
