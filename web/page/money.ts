/** Pence inside, two-place decimal strings at the edges, as on the server. */

const DECIMAL = /^(\d{1,8})(?:\.(\d{1,2}))?$/;

export function parsePence(value: string): number | undefined {
  const match = DECIMAL.exec(value.trim().replace(/^£/, ''));
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export function formatPence(pence: number): string {
  return `${Math.floor(pence / 100)}.${String(pence % 100).padStart(2, '0')}`;
}

export interface Fee {
  percent: string;
  fixed: string;
}

/** The server's rule: round_half_up(pure × percent) + fixed. */
export function feePence(purePence: number, fee: Fee | undefined): number {
  if (!fee) return 0;
  const bps = parsePence(fee.percent) ?? 0;
  return Math.floor((purePence * bps + 5_000) / 10_000) + (parsePence(fee.fixed) ?? 0);
}
