/**
 * What a service refuses, in words any caller understands: one of a closed set of codes and a sentence for a
 * person. Services throw these; the HTTP layer alone maps each code to a status (platform/http/errors.ts).
 */

export const ERROR_CODES = [
  'invalid_request',
  'invalid_json',
  'unsupported_content_type',
  'no_active_tenancy',
  'invalid_signature',
  'unauthorized',
  'session_expired',
  'forbidden',
  'integrator_suspended',
  'not_found',
  'method_not_allowed',
  'conflict',
  'feature_disabled',
  'amount_changed',
  'terms_changed',
  'paid_out',
  'payload_too_large',
  'unprocessable',
  'idempotency_mismatch',
  'rate_limited',
  'too_many_attempts',
  'internal_error',
  'unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    /** Response headers the refusal needs, e.g. Retry-After with rate_limited or a challenge with unauthorized. */
    readonly headers: Record<string, string> = {},
    /** More members of the answer beside error and detail, e.g. a fresh `quote` with amount_changed. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

/** Field errors: dotted path from the request root to a list of messages. */
export type FieldErrors = Record<string, string[]>;

/** A refusal of particular fields of the request, answered as the field errors object. */
export class FieldValidationError extends Error {
  constructor(readonly fields: FieldErrors) {
    super('Validation failed');
  }
}
