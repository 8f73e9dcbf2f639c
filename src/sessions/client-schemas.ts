import { type TSchema, Type } from 'typebox';
import { ErrorResponse, FieldErrorsResponse } from '../platform/http/schemas.ts';
import { ERROR_MESSAGE } from '../platform/http/validation.ts';
import { AMOUNT_FORMAT_MESSAGE, AMOUNT_PATTERN, parsePence } from '../shared/money.ts';

/*
 * What the Client API's routes have in common, in the Client API surface (src/client) and in the domains' own
 * Client API routes (the schedules'): the answers a user session token gets, and the amounts a tenant sends.
 */

/** The form parsePence reads: pounds, with at most two decimal places ("1200", "1200.5", "1200.50"). */

/** An amount in pounds a client sends; anything parsePence would refuse is a field error with its message. */
export function AmountInput(description: string, example: string) {
  return Type.String({
    pattern: AMOUNT_PATTERN,
    [ERROR_MESSAGE]: AMOUNT_FORMAT_MESSAGE,
    description,
    examples: [example],
  });
}

/** Pence of an amount AmountInput has checked. */
export function amountPence(value: string): number {
  const pence = parsePence(value);
  if (pence === undefined) throw new Error(`An amount the schema let through is not one: "${value}".`);
  return pence;
}

/** A 400 with field errors (a body's) or `{"error", "detail"}` (path, query, JSON or content type). */
export const BadRequest = Type.Union([FieldErrorsResponse, ErrorResponse], {
  description: 'Invalid request: field errors for the body, or an error for the path, the JSON or its type.',
});

const described = (description: string) => ({ ...ErrorResponse, description });

/** Response headers, as @fastify/swagger reads them from a response schema (the serializer ignores them). */
export const WWW_AUTHENTICATE = {
  'www-authenticate': { type: 'string', enum: ['Bearer'], description: 'Always `Bearer`.' },
};
export const RETRY_AFTER = {
  'retry-after': { type: 'string', pattern: '^\\d+$', description: 'Seconds to wait before retrying.' },
};

/**
 * The answers every Client API route can give besides its own: 401 (no, an invalid or an expired user session
 * token), 403 integrator_suspended and 429 rate_limited (per session, with Retry-After).
 */
export function clientErrors(extra: Record<number, TSchema> = {}): Record<number, TSchema> {
  return {
    401: {
      ...described('No valid user session token: missing, a server token, unknown, or its session expired.'),
      headers: WWW_AUTHENTICATE,
    },
    403: described('integrator_suspended: the operator suspended the platform this session belongs to.'),
    429: {
      ...described('rate_limited: too many requests for this session; retry after Retry-After seconds.'),
      headers: RETRY_AFTER,
    },
    ...extra,
  };
}

/** The Client API's 404 for an id that is not this session's (or user's): the same as an unknown one. */
export const NotFound = described('not_found: no such id for this session.');
