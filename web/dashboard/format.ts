/** Words and numbers every dashboard page writes the same way. */

/** How long, in its two largest units: "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h"; none as a dash. */
export function ageOf(seconds: number | null): string {
  if (seconds === null) return '—';
  const whole = Math.max(0, Math.round(seconds));
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = whole;
  for (const [name, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (parts.length > 0 && parts.length < 2)) parts.push(`${count} ${name}`);
    if (parts.length === 2) break;
  }
  // "2 h 0 min" reads as "2 h".
  const shown = parts.filter((part, index) => index === 0 || !part.startsWith('0 '));
  return shown.length === 0 ? '0 s' : shown.join(' ');
}
