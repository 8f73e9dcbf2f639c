/**
 * What the CLI prints to a terminal. Text from the server or from the command line (a tenant's payment reference,
 * a landlord's account name, a webhook URL, an error's detail) may carry terminal controls: an escape sequence that
 * hides a payout row while the operator reviews a run, a carriage return that overwrites one, a bidi override that
 * reorders what is shown. Every such value is printed through `printable`, so the operator sees `\x1b` instead.
 */

/**
 * Characters never printed raw: C0 controls (newline and tab included: a value never needs them, the CLI's own
 * line breaks come from its formatting), DEL, C1 controls, lone surrogates, the Unicode bidi controls (marks,
 * embeddings, overrides and isolates, which can reorder what is shown) and the line and paragraph separators.
 */
const UNPRINTABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udfff]/gu;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  return SHORT[char] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
}

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

/**
 * `text` safe to print to a terminal: each control, bidi control or lone surrogate written as visible text
 * (`\x1b`, `\r`, `\n`, `\u202e`), everything else as it is. A backslash is left as it is, so escaping twice is
 * the same as once (a value escaped where it is formatted can pass through another escaping boundary).
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escapeChar);
}

/**
 * A template literal tag: the literal text as written, every interpolated value through `printable`. For one line
 * of output: line breaks belong between the lines, never inside a value.
 */
export function safe(strings: TemplateStringsArray, ...values: unknown[]): string {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += printable(String(value)) + strings[i + 1]!;
  });
  return text;
}

/** Each line of `text` made printable: for a message built from several lines (an error with its details). */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/**
 * `--json` output: JSON.stringify escapes C0 controls but leaves DEL, C1 controls and bidi controls raw; those are
 * written as \u escapes too. The same JSON value, parsed; only its bytes differ.
 */
export function jsonOutput(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (char) => `\\u${hex(char.charCodeAt(0), 4)}`,
  );
}

/** Columns padded to their widest cell; the last column is not padded. Every cell is made printable first. */
export function table(header: string[], rows: string[][]): string {
  const cells = [header, ...rows].map((row) => row.map(printable));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
