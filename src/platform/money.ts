/** Money is integer pence inside and a two-place decimal string at the edges. */

const DECIMAL = /^(\d{1,8})(?:\.(\d{1,2}))?$/;

/** What to tell a client whose amount parsePence refused. */
export const AMOUNT_FORMAT_MESSAGE =
  'Enter an amount in pounds with at most two decimal places, e.g. "1200.00".';

/** Parses "1200", "1200.5" or "1200.50" into pence; undefined for anything else. */
export function parsePence(value: string): number | undefined {
  const match = DECIMAL.exec(value);
  if (!match) return undefined;
  const pounds = Number(match[1]);
  const fraction = (match[2] ?? '').padEnd(2, '0');
  return pounds * 100 + Number(fraction);
}

export function formatPence(pence: number): string {
  const sign = pence < 0 ? '-' : '';
  const abs = Math.abs(pence);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** "1.4" percent -> 140 basis points; undefined unless 0 to 100 with at most two decimals. */
export function parsePercentBps(value: string): number | undefined {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) return undefined;
  const bps = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return bps <= 10_000 ? bps : undefined;
}

export function formatBps(bps: number): string {
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
}
