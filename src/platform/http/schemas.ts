import { type TSchema, Type } from 'typebox';
import { ERROR_CODES } from '../errors.ts';
import type { IdPrefix } from '../ids.ts';
import { ERROR_MESSAGE } from './validation.ts';

export const ErrorResponse = Type.Object(
  {
    error: Type.Enum(ERROR_CODES, {
      description: 'A machine-readable code from a closed set (docs/errors.md lists each with its status).',
    }),
    detail: Type.String({ description: 'What went wrong, for a person.' }),
  },
  { $id: 'Error', title: 'Error' },
);

export const FieldErrorsResponse = Type.Record(Type.String(), Type.Array(Type.String()), {
  title: 'FieldErrors',
  description:
    'Dotted path from the request root to the messages for that field, e.g. {"tenant.0.rent_due_day": ["Ensure this value is less than or equal to 31."]}. Errors that belong to no field use "non_field_errors".',
});

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });

const ID_EXAMPLE_TAIL = '3fQx8LmN2pRs7TvW9yZb1C';

/**
 * An id of ours in a path or query: its prefix and then letters and digits, at most 64 characters. Anything else is
 * refused before a handler reads it (a well-formed id that is unknown is a 404 as before).
 */
export function IdString(
  prefix: IdPrefix,
  what: string,
  options: { description?: string; example?: boolean } = {},
) {
  const { example = true, ...rest } = options;
  return Type.String({
    maxLength: 64,
    pattern: `^${prefix}_[A-Za-z0-9]+$`,
    [ERROR_MESSAGE]: `Enter ${what} id: "${prefix}_" followed by letters and digits.`,
    ...(example ? { examples: [`${prefix}_${ID_EXAMPLE_TAIL}`] } : {}),
    ...rest,
  });
}

/** An idempotency key (Client API payments, operator refunds): 1 to 255 printable ASCII characters, no spaces. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_KEY_MESSAGE = 'Use 1 to 255 printable ASCII characters without spaces.';

/** The answers every authenticated Integration API route can give besides its own (403: integrator_suspended). */
export function integrationErrors(extra: Record<number, TSchema> = {}): Record<number, TSchema> {
  return {
    400: Type.Union([FieldErrorsResponse, ErrorResponse]),
    401: ErrorResponse,
    403: ErrorResponse,
    429: ErrorResponse,
    ...extra,
  };
}

/** Cursor paging for a list of `resource`s, newest first: `limit` and `starting_after` (the last id of a page). */
const PAGED = {
  payment: { prefix: 'pay', name: 'a payment' },
  event: { prefix: 'evt', name: 'an event' },
  audit_entry: { prefix: 'aud', name: 'an audit entry' },
} as const;

export function pageQuery(resource: keyof typeof PAGED) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    starting_after: Type.Optional(
      IdString(PAGED[resource].prefix, PAGED[resource].name, {
        description: `A ${resource}_id: the page starts with the ${resource.replace('_', ' ')} listed right after it.`,
        // No example: an example id names no row, and a cursor must name one.
        example: false,
      }),
    ),
  };
}

/** preValidation hook for routes whose JSON body is optional: no body validates as `{}`. */
export async function optionalBody(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
