/** After a failed attempt, the next one comes this much later; the 8th failed attempt is the last. */
export const WEBHOOK_RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;

/** Attempts in a round: the first, then one per retry delay. */
export const MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** Jitter only ever delays an attempt: by up to 10% of its delay, and never by more than a minute. */
export const MAX_JITTER_FRACTION = 0.1;
export const MAX_JITTER_MS = 60_000;

/** A Retry-After further away than this is not waited for (the next attempt comes after this long). */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** How long an attempt may take: a 2xx after this is a failure. */
export const ATTEMPT_TIMEOUT_MS = 15_000;

/**
 * When the attempt after `attemptsInRound` failed ones is due: the schedule's delay plus jitter, or later if the
 * endpoint asked (Retry-After on 429/503). Undefined after the last attempt of the round.
 */
export function nextAttemptAt(
  failedAt: Date,
  attemptsInRound: number,
  options: { retryAfterMs?: number; random?: () => number } = {},
): Date | undefined {
  const delay = WEBHOOK_RETRY_DELAYS_MS[attemptsInRound - 1];
  if (attemptsInRound < 1 || delay === undefined) return undefined;
  const random = options.random ?? Math.random;
  const jitter = Math.floor(random() * Math.min(delay * MAX_JITTER_FRACTION, MAX_JITTER_MS));
  const retryAfter = Math.min(options.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return new Date(failedAt.getTime() + Math.max(delay + jitter, retryAfter));
}

/** A Retry-After header (seconds, or an HTTP date) as milliseconds from now; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at) || !/[a-z]/i.test(trimmed)) return undefined;
  return Math.max(0, at - now.getTime());
}
