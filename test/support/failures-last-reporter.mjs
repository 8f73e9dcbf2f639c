import { relative } from 'node:path';
import { Readable } from 'node:stream';
import { spec, tap } from 'node:test/reporters';

/**
 * `npm test`'s reporter: TAP (spec on a terminal), with every failed test listed again, by its full path of suites
 * and its error's first lines, just before the closing summary. A run's log is often read from its end only (a CI
 * page shows the last lines): the failures must be there, not only where the test happened to finish.
 * Plain JavaScript: node loads reporters before `--import tsx` applies.
 */
export default async function* failuresLast(source) {
  if (!process.stdout.isTTY) return yield* tap(withFailuresLast(source));
  // spec is a stream (a Transform of events into text), not a generator like tap.
  yield* Readable.from(withFailuresLast(source)).pipe(new spec());
}

async function* withFailuresLast(source) {
  // A test's suites, by the file that defines them: the processes of a tier run files side by side, each file's tests
  // in order. (A tier names each file's suite by its path, and that suite is defined in the tier's queue module.)
  const suites = new Map();
  const failures = [];
  let listed = false;
  for await (const event of source) {
    const { data } = event;
    const file = data.file ?? '';
    if (event.type === 'test:start') {
      const path = suites.get(file) ?? [];
      path.length = data.nesting;
      path.push(data.name);
      suites.set(file, path);
    }
    if (event.type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') {
      const inside = (suites.get(file) ?? []).slice(0, data.nesting).filter((name) => name !== undefined);
      const path = data.nesting === 0 ? [data.name] : [relative(process.cwd(), file), ...inside, data.name];
      failures.push(`${path.join(' > ')}: ${describeError(data.details?.error)}`);
    }
    if (
      event.type === 'test:diagnostic' &&
      !listed &&
      data.nesting === 0 &&
      /^tests \d+$/.test(data.message) &&
      failures.length > 0
    ) {
      listed = true;
      for (const message of [`${failures.length} failed:`, ...failures.map((failure) => `  ${failure}`)]) {
        yield { type: 'test:diagnostic', data: { nesting: 0, message } };
      }
    }
    yield event;
  }
}

function describeError(error) {
  const message =
    typeof error?.cause?.message === 'string' ? error.cause.message : String(error?.message ?? 'failed');
  const kind = error?.failureType && error.failureType !== 'testCodeFailure' ? `[${error.failureType}] ` : '';
  return kind + message.split('\n').slice(0, 4).join(' | ').slice(0, 500);
}
