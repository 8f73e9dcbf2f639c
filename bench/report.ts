import type { BenchCase } from './cases.ts';
import type { DbStats } from './db-stats.ts';

/** The bench's results: one row of figures per case and database, and the table printed from them. */
export type DbKind = 'pglite' | 'postgres';

export interface Figures {
  case: string;
  db: DbKind | null;
  /** What requests_per_second counts: "req" for load cases, e.g. "users" for a batch. */
  unit: string;
  requests_per_second: number;
  p99_ms: number;
  p50_ms: number;
  requests: number;
  errors: number;
  timeouts: number;
  non_2xx: number;
  ratio_to_reference: number | null;
  /** Against the case's own yardstick (a hand-written equivalent) measured on the same database in this run. */
  vs_yardstick?: { case: string; ratio: number; p99_ms: number; round_ratios?: number[] };
  /** With --rounds: every round's rate, in the order measured; the row's figures are the median round's. */
  round_rates?: number[];
  extra?: Record<string, number>;
  /** Batch cases: the units of work done (the rate's numerator). */
  units?: number;
  /** With --db-stats on PostgreSQL: the database's cost per unit (per request for load cases). */
  db_stats?: DbStats;
}

export interface Failure {
  case: string;
  db: DbKind;
  error: string;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function table(reference: Figures, rows: Figures[], failures: Failure[]): string {
  const header = [
    'case',
    'db',
    'rate',
    'unit',
    'p50 ms',
    'p99 ms',
    'errors',
    'timeouts',
    'non-2xx',
    'vs fastify',
    'notes',
  ];
  const line = (f: Figures) => [
    f.case,
    f.db ?? '-',
    fmt(f.requests_per_second),
    `${f.unit}/s`,
    fmt(f.p50_ms),
    fmt(f.p99_ms),
    String(f.errors),
    String(f.timeouts),
    String(f.non_2xx),
    f.ratio_to_reference === null ? '-' : `${fmt(f.ratio_to_reference, 3)}x`,
    [
      ...(f.vs_yardstick ? [`${fmt(f.vs_yardstick.ratio, 3)}x ${f.vs_yardstick.case}`] : []),
      ...(f.round_rates ? [`rounds ${f.round_rates.map((rate) => fmt(rate)).join(' / ')}`] : []),
      ...Object.entries(f.extra ?? {}).map(([key, value]) => `${key}=${value}`),
    ].join(' '),
  ];
  const body = [header, line(reference), ...rows.map(line)];
  for (const failure of failures)
    body.push([failure.case, failure.db, 'FAILED', '', '', '', '', '', '', '', '']);
  const widths = header.map((_, i) => Math.max(...body.map((r) => (r[i] ?? '').length)));
  const render = (r: string[]) =>
    r
      .map((cell, i) =>
        i < 2 || i === 3 || i === 10 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0),
      )
      .join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [render(header), rule, ...body.slice(1).map(render)].join('\n');
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : Number((((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2).toFixed(3));
}

/** One row per case and database: the round with the median rate, with every round's rate beside it. */
export function medianRows(
  rounds: Figures[][],
  cases: BenchCase[],
  dbs: DbKind[],
  failures: Failure[],
): Figures[] {
  const rows: Figures[] = [];
  for (const db of dbs) {
    for (const benchCase of cases) {
      if (failures.some((f) => f.case === benchCase.name && f.db === db)) continue;
      const runs = rounds.flatMap((round) => round.filter((r) => r.case === benchCase.name && r.db === db));
      if (runs.length === 0) continue;
      const byRate = [...runs].sort((a, b) => a.requests_per_second - b.requests_per_second);
      const row = byRate[Math.floor((byRate.length - 1) / 2)]!;
      rows.push(runs.length > 1 ? { ...row, round_rates: runs.map((r) => r.requests_per_second) } : row);
    }
  }
  return rows;
}
