/** Seconds from now to the earlier of two instants, never negative. */
export function secondsUntil(now: Date, ...instants: Date[]): number {
  return Math.max(0, Math.floor((Math.min(...instants.map((at) => at.getTime())) - now.getTime()) / 1000));
}
