import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import type { Clock } from '../clock/clock.ts';
import { ServiceError } from '../errors.ts';

/**
 * Failed authentications per client address: past `max` in a window, a token from that address that would have to
 * be looked up in the database is answered 429 instead, until the window ends. A guessed token then costs nothing,
 * and no address can make the database check tokens without end.
 *
 * The check reads this process's memory only, so it adds nothing to a request's path. Each failure is also counted
 * in Redis when REDIS_URL is set: the count every node shares comes back with it, so a node learns of an address
 * over the limit at its first failure from it.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route limits its own failed sign-ins (the dashboard's, per account and address in the database): its 401s
     * are not counted here, so a person's expired session never blocks the address's server tokens.
     */
    ownAuthFailureLimit?: boolean;
  }
}

export interface AuthFailureLimit {
  max: number;
  windowMs: number;
}

interface Window {
  count: number;
  resetAt: number;
}

/** Windows kept at most: past it, ended windows are dropped, and if none has ended the oldest go. */
const MAX_ADDRESSES = 100_000;

export class AuthFailureLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: AuthFailureLimit,
    private readonly redis?: Redis,
  ) {}

  /** Whole seconds until `address` may authenticate again, or undefined when it may now. */
  retryAfterSeconds(address: string): number | undefined {
    // No address has failed lately (the usual case): nothing to parse.
    if (this.#windows.size === 0) return undefined;
    const key = addressKey(address);
    const window = this.#windows.get(key);
    const now = this.clock.now().getTime();
    if (!window) return undefined;
    if (window.resetAt <= now) {
      this.#windows.delete(key);
      return undefined;
    }
    return window.count >= this.limit.max ? Math.max(1, Math.ceil((window.resetAt - now) / 1000)) : undefined;
  }

  /** 429 `rate_limited` with Retry-After when `address` is over the limit: call it before looking a token up. */
  assertMayLookUp(address: string): void {
    const seconds = this.retryAfterSeconds(address);
    if (seconds === undefined) return;
    throw new ServiceError(
      'rate_limited',
      `Too many failed authentications from your address. Retry after ${seconds} s (Retry-After), with a valid token.`,
      { 'retry-after': String(seconds) },
    );
  }

  /** Counts one failed authentication of `address`. */
  async recordFailure(address: string): Promise<void> {
    const key = addressKey(address);
    const now = this.clock.now().getTime();
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.#windows.size >= MAX_ADDRESSES) this.#prune(now);
      window = { count: 0, resetAt: now + this.limit.windowMs };
      this.#windows.set(key, window);
    }
    window.count += 1;
    if (!this.redis) return;
    const shared = await this.#countShared(key);
    if (shared && shared.count > window.count) {
      window.count = shared.count;
      window.resetAt = now + shared.ttlMs;
    }
  }

  async #countShared(key: string): Promise<{ count: number; ttlMs: number } | undefined> {
    const redisKey = `rentpay-auth-failures-${key}`;
    try {
      const results = await this.redis!.multi()
        .set(redisKey, '0', 'PX', this.limit.windowMs, 'NX')
        .incr(redisKey)
        .pttl(redisKey)
        .exec();
      const count = Number(results?.[1]?.[1]);
      const ttlMs = Number(results?.[2]?.[1]);
      return Number.isFinite(count) && ttlMs > 0 ? { count, ttlMs } : undefined;
    } catch {
      // Redis down: this process's own count still limits.
      return undefined;
    }
  }

  /** Drops ended windows, then the oldest, down to 90 % of the cap: a full map is scanned once per 10,000 adds. */
  #prune(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < MAX_ADDRESSES * 0.9) break;
      this.#windows.delete(key);
    }
  }
}

/** IPv6 clients are counted per /64, the block one subscriber gets; IPv4 per address. */
function addressKey(address: string): string {
  try {
    const parsed = ipaddr.process(address);
    if (parsed.kind() === 'ipv6') {
      return `${(parsed as ipaddr.IPv6).parts
        .slice(0, 4)
        .map((part) => part.toString(16))
        .join(':')}::/64`;
    }
    return parsed.toString();
  } catch {
    return address;
  }
}

/**
 * Every 401 answered, on every surface, counts as a failure of its client address. The checks that would look a
 * token up in the database call `assertMayLookUp` first: an address over the limit is answered 429 there, and a
 * credential checked without a lookup (the configured operator or metrics token, a server token this node has
 * just checked) still works from it.
 */
export function installAuthFailureLimit(app: FastifyInstance, limiter: AuthFailureLimiter): void {
  // Counted as the answer is sent, so the next request from the address already sees the count.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 401 && request.routeOptions.config?.ownAuthFailureLimit !== true) {
      limiter
        .recordFailure(request.ip)
        .catch((error) =>
          request.log.warn({ err: (error as Error).message }, 'could not count a failed authentication'),
        );
    }
    done(null, payload);
  });
}
