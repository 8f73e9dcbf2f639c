import { CliError } from './operator-client.ts';
import { safe } from './output.ts';

/** For a repeatable option: each use adds its value to the list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(safe`"${value}" is not a positive whole number`);
  return n;
}
