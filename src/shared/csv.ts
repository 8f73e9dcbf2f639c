/** CSV files people open in a spreadsheet: the bank's payout file, the dashboard's payment export. */

/**
 * One CSV cell: quoted, quotes doubled, and a cell a spreadsheet would run as a formula (=, +, -, @, tab, CR)
 * prefixed with an apostrophe so it is shown as text.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** One CSV line of cells, CRLF-terminated. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
