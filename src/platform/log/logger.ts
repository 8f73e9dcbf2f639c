import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** 13 to 19 digits, optionally split by spaces or dashes: anything that could be a card number. */
const CARD_LIKE = /\b\d(?:[ -]?\d){12,18}\b/g;
/** Our own credentials, wherever they appear in a message or field. */
const TOKEN_LIKE = /\b(?:rp_(?:sandbox|live|ust)_|whsec_|rpo_)[A-Za-z0-9+/=_-]+/g;
const SECRET_KEY = /token|secret|password|authorization|cookie|^pan$|card_?number|^cvc$|^cvv$|^number$/i;

export function scrubString(value: string): string {
  return value.replace(CARD_LIKE, '[REDACTED]').replace(TOKEN_LIKE, '[REDACTED]');
}

/** Deep copy of a log record with secrets and card-like values replaced. */
export function scrub(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[Truncated]';
  if (typeof value === 'string') return scrubString(value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (value instanceof Error) {
    return {
      type: value.name,
      message: scrubString(value.message),
      stack: value.stack && scrubString(value.stack),
    };
  }
  // Only plain objects are copied: class instances (a Fastify request) go on to pino's serializers intact.
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] =
        SECRET_KEY.test(key) && inner !== null && inner !== undefined
          ? '[REDACTED]'
          : scrub(inner, depth + 1);
    }
    return out;
  }
  return value;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { service: 'rentpay' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (record) => scrub(record) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? scrubString(a) : a)) as Parameters<
          typeof method
        >;
        method.apply(this, scrubbed);
      },
    },
    serializers: {
      req: (req: { method: string; url: string; id: string; ip?: string }) => ({
        method: req.method,
        // Query strings can carry the page's token (?token=...); keep the path only.
        url: req.url.split('?')[0],
        request_id: req.id,
        ip: req.ip,
      }),
      res: (res: { statusCode: number }) => ({ status_code: res.statusCode }),
      err: pino.stdSerializers.err,
    },
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
