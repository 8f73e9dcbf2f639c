/**
 * Whether an error means the database could not be reached or went away (as opposed to a query it refused): the
 * caller can only wait and try again. node-postgres reports a refused or dropped connection with the socket's
 * errno or with plain messages; PostgreSQL itself with SQLSTATE class 08 (connection exception), 57P0x (the
 * server shutting down or starting up) or 53300 (no connection slot free).
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Client has encountered a connection error and is not queryable/,
  /Cannot use a pool after calling end on the pool/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08'))
    ) {
      return true;
    }
    if (cause instanceof AggregateError && cause.errors.some(isDatabaseUnavailable)) return true;
    if (MESSAGES.some((pattern) => pattern.test(cause instanceof Error ? cause.message : ''))) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
