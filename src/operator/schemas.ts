import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { ErrorResponse, FieldErrorsResponse, IdString } from '../platform/http/schemas.ts';

const described = (description: string) => ({ ...ErrorResponse, description });

/** A 400 with field errors (a body's) or `{"error", "detail"}` (path, query, JSON or content type). */
export const BadRequest = Type.Union([FieldErrorsResponse, ErrorResponse], {
  description: 'Invalid request: field errors for the body, or an error for the path, the query or the JSON.',
});

export const NotFound = described('not_found: no such id.');

/** Every Operator API route answers 401 without the operator token; `extra` adds the route's own errors. */
export function operatorErrors(extra: Record<number, TSchema> = {}): Record<number, TSchema> {
  return {
    401: {
      ...described('unauthorized: no operator token, or not the operator token.'),
      headers: { 'www-authenticate': { type: 'string', enum: ['Bearer'], description: 'Always `Bearer`.' } },
    },
    ...extra,
  };
}

/** An integrator in the path. */
export const IntegratorParams = Type.Object({
  integrator_id: IdString('int', 'an integrator'),
});

/** An event in the path. */
export const EventParams = Type.Object({
  event_id: IdString('evt', 'an event'),
});
