/**
 * Days as people in the UK count them (Europe/London: GMT in winter, BST in summer), for what the dashboard calls
 * "today", "this month" and a search's `from`/`to`. The ledger keeps its UTC days; these are for people's views.
 */

const LONDON = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function londonParts(at: Date): Record<string, number> {
  const parts: Record<string, number> = {};
  for (const part of LONDON.formatToParts(at))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return parts;
}

/** How far London's clock is ahead of UTC at an instant, in milliseconds (0 or 3,600,000). */
function londonOffsetMs(at: Date): number {
  const p = londonParts(at);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/** The UK calendar date ("YYYY-MM-DD") of an instant. */
export function ukDate(at: Date): string {
  const p = londonParts(at);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/**
 * The instant a UK calendar day begins (midnight in London). The clocks change at 01:00 UTC, never at midnight, so
 * every UK day has exactly one midnight.
 */
export function ukDayStart(date: string): Date {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(utcMidnight)) throw new Error(`Not a date: ${date}`);
  // Midnight in London is midnight UTC less the offset then; the offset a few hours before is the same one.
  return new Date(utcMidnight - londonOffsetMs(new Date(utcMidnight - 3 * 3_600_000)));
}

/** The first day of the UK month a day is in. */
export function monthStart(date: string): string {
  return `${date.slice(0, 8)}01`;
}
