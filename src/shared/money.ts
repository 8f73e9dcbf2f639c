/**
 * Money, once for the server, the page, the SDK and the CLI: integer pence inside, a two-place decimal string
 * ("1200.00") at the edges, "£1,200.00" for people to read.
 */

/** The API's form of an amount, as a JSON-Schema pattern: up to 8 digits of pounds and up to 2 of pence. */
export const AMOUNT_PATTERN = '^(\\d{1,8})(?:\\.(\\d{1,2}))?$';
const DECIMAL = new RegExp(AMOUNT_PATTERN);
/** Thousands written the British way: "1,200.00" (commas every three digits, or none at all). */
const GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?$/;

/** What to tell a client whose amount parsePence refused. */
export const AMOUNT_FORMAT_MESSAGE =
  'Enter an amount in pounds with at most two decimal places, e.g. "1200.00".';

/** The API's form: "1200", "1200.5" or "1200.50" into pence; undefined for anything else. */
export function parsePence(value: string): number | undefined {
  const match = DECIMAL.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** Pounds as a person types them ("1200", "£1,200.00") or as the API sends them ("1200.00"), in pence. */
export function parseTypedPence(value: string): number | undefined {
  const typed = value.trim().replace(/^£\s*/, '');
  if (typed.includes(',') && !GROUPED.test(typed)) return undefined;
  return parsePence(typed.replace(/,/g, ''));
}

/**
 * Pounds as a JSON number (10.5) -> pence, when it has at most two decimals. Exact: a number written with two
 * decimals parses to the double nearest to it, which toFixed(2) prints back unchanged; anything finer (0.001,
 * 1e-9) does not survive the round trip, so it is never rounded into a different (or zero) amount.
 */
export function numberToPence(value: number): number | undefined {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e15) return undefined;
  const fixed = value.toFixed(2);
  if (Number(fixed) !== value) return undefined;
  return Math.round(Number(fixed) * 100);
}

/** Pence as the API writes them: "1200.00", "-5.00". */
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

/** Basis points as the API writes a percent: 140 -> "1.40". */
export function formatBps(bps: number): string {
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
}

/**
 * The fee rule: round_half_up(pure × percent_bps / 10000) + fixed. Integer arithmetic throughout: pure ≤ 10^7 and
 * bps ≤ 10^4 keep every product far below 2^53.
 */
export function feeOf(
  purePence: number,
  fee: { percentBps: number; fixedPence: number } | undefined,
): number {
  if (!fee) return 0;
  return Math.floor((purePence * fee.percentBps + 5_000) / 10_000) + fee.fixedPence;
}

/** The amount the tenant pays for (before the fee) is between these, in pence. */
export const MIN_PURE_AMOUNT_PENCE = 100;
export const MAX_PURE_AMOUNT_PENCE = 10_000_000;

/** "1.00 to 100000.00", for messages. */
export const PURE_AMOUNT_LIMITS = `${formatPence(MIN_PURE_AMOUNT_PENCE)} to ${formatPence(MAX_PURE_AMOUNT_PENCE)}`;

/** Whether a pure amount is within the payment limits. */
export function amountInRange(purePence: number): boolean {
  return purePence >= MIN_PURE_AMOUNT_PENCE && purePence <= MAX_PURE_AMOUNT_PENCE;
}
