import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import type { Clock } from '../clock/clock.ts';

interface Window {
  count: number;
  startedMs: number;
}

/**
 * The in-process rate-limit store (used when no Redis is configured), reading time from the app's clock rather than
 * the system's, so a window's start and end follow the same clock as everything else the app does. At most `size`
 * keys are kept; the least recently used is forgotten first.
 */
export function clockedRateLimitStore(clock: Clock, size = 5_000) {
  return class ClockedRateLimitStore implements FastifyRateLimitStore {
    readonly #windows = new Map<string, Window>();

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const nowMs = clock.now().getTime();
      let window = this.#windows.get(key);
      if (!window || window.startedMs + timeWindow <= nowMs) window = { count: 0, startedMs: nowMs };
      window.count += 1;
      this.#windows.delete(key);
      this.#windows.set(key, window);
      if (this.#windows.size > size) this.#windows.delete(this.#windows.keys().next().value as string);
      callback(null, { current: window.count, ttl: timeWindow - (nowMs - window.startedMs) });
    }

    child(): FastifyRateLimitStore {
      return new ClockedRateLimitStore();
    }
  };
}
