import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { type ErrorCode, type FieldErrors, FieldValidationError, ServiceError } from '../errors.ts';
import { DATE_RANGE_MESSAGE, EARLIEST_DATE, LATEST_DATE, outOfDateRange } from './input-checks.ts';

export type { ErrorCode, FieldErrors };

/** The status each error code answers with: the one place codes meet HTTP. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_json: 400,
  unsupported_content_type: 400,
  no_active_tenancy: 400,
  invalid_signature: 400,
  unauthorized: 401,
  session_expired: 401,
  forbidden: 403,
  integrator_suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  feature_disabled: 409,
  amount_changed: 409,
  terms_changed: 409,
  paid_out: 409,
  payload_too_large: 413,
  unprocessable: 422,
  idempotency_mismatch: 422,
  rate_limited: 429,
  too_many_attempts: 429,
  internal_error: 500,
  unavailable: 503,
};

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  /** The value refused (Ajv's verbose mode). */
  data?: unknown;
}

const TYPE_MESSAGES: Record<string, string> = {
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
  object: 'Expected an object.',
  array: 'Expected a list of items.',
  null: 'Expected null.',
};

/**
 * JSON bodies are not converted ("5" is not an integer, 5 is not a string), so a wrong type there says how to
 * write the value. Query strings and path parameters are text and are converted, so they keep the plain message.
 */
const BODY_TYPE_MESSAGES: Record<string, string> = {
  ...TYPE_MESSAGES,
  integer: 'A valid integer is required: a whole number without quotes, e.g. 5.',
  number: 'A valid number is required: a number without quotes, e.g. 12.5.',
  string: 'Not a valid string: send the value in quotes.',
  boolean: 'Must be a valid boolean: true or false, without quotes.',
};

/** Where the values being validated come from: a JSON body, or text (a query string or path parameters). */
export type ValidatedPart = 'body' | 'text';

const WELL_FORMED_DATE = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

function formatMessage(format: unknown, value: unknown): string {
  // A date the format refused that looks right is a real date outside the range every date must lie in.
  const outOfRange =
    typeof value === 'string' && WELL_FORMED_DATE.test(value.slice(0, 10)) && outOfDateRange(value);
  switch (format) {
    case 'email':
      return 'Enter a valid email address.';
    case 'date':
      return outOfRange && value.length === 10
        ? DATE_RANGE_MESSAGE
        : 'Date has wrong format or is not a real date. Use YYYY-MM-DD.';
    case 'uri':
      return 'Enter a valid URL.';
    case 'date-time':
      return outOfRange
        ? `Enter a time from ${EARLIEST_DATE}T00:00:00Z to ${LATEST_DATE}T23:59:59Z.`
        : 'Datetime has wrong format. Use ISO 8601.';
    default:
      return `Enter a valid ${String(format)}.`;
  }
}

function messageFor(error: AjvError, part: ValidatedPart): string {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'type': {
      const types = String(p.type).split(',');
      const first = types.find((t) => t !== 'null') ?? types[0] ?? 'value';
      return (part === 'body' ? BODY_TYPE_MESSAGES : TYPE_MESSAGES)[first] ?? `Expected ${String(p.type)}.`;
    }
    case 'minLength':
      return p.limit === 1
        ? 'This field may not be blank.'
        : `Ensure this field has at least ${String(p.limit)} characters.`;
    case 'maxLength':
      return `Ensure this field has no more than ${String(p.limit)} characters.`;
    case 'minimum':
      return `Ensure this value is greater than or equal to ${String(p.limit)}.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${String(p.limit)}.`;
    case 'exclusiveMinimum':
      return `Ensure this value is greater than ${String(p.limit)}.`;
    case 'minItems':
      return p.limit === 1
        ? 'This list may not be empty.'
        : `Ensure this list has at least ${String(p.limit)} items.`;
    case 'maxItems':
      return `Ensure this list has no more than ${String(p.limit)} items.`;
    case 'const':
      return `Must be ${JSON.stringify(p.allowedValue)}.`;
    case 'enum':
      return `Not a valid choice. Choose one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'format':
      return formatMessage(p.format, error.data);
    case 'pattern':
      return error.message?.startsWith('must match') ? 'Enter a valid value.' : (error.message ?? 'Invalid.');
    case 'additionalProperties':
      return `Unknown field "${String(p.additionalProperty)}".`;
    case 'uniqueItems':
      return 'Items in this list must be unique.';
    default:
      return error.message ?? 'Invalid value.';
  }
}

/**
 * Turns Ajv's errors into dotted-path field errors. `anyOf` wrappers (a body that may be one object or
 * an array) are dropped in favour of the branch that matches the body's shape, so a caller sees the
 * field that is wrong rather than "must match a schema in anyOf".
 */
export function fieldErrorsFromAjv(
  errors: readonly AjvError[],
  prefix = '',
  part: ValidatedPart = 'body',
): FieldErrors {
  const fields: FieldErrors = {};
  const onlyNullAllowed = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const segments = error.instancePath.split('/').slice(1).map(decodePointer);
    if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') {
      segments.push(error.params.missingProperty);
    }
    const key = [prefix, ...segments].filter((s) => s !== '').join('.') || 'non_field_errors';
    // "Expected null." from the null branch of a nullable field only matters when nothing else is said.
    if (error.keyword === 'type' && error.params.type === 'null') {
      onlyNullAllowed.add(key);
      continue;
    }
    const message = messageFor(error, part);
    const list = fields[key] ?? [];
    if (!list.includes(message)) list.push(message);
    fields[key] = list;
  }
  for (const key of onlyNullAllowed) fields[key] ??= [TYPE_MESSAGES.null ?? 'Expected null.'];
  return fields;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** What a 503 unavailable asks the caller to wait before trying again. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

function errorBody(code: ErrorCode, detail: string) {
  return { error: code, detail };
}

/** One place maps every failure to the two error shapes (`{error, detail}`, field errors); nothing leaves as an HTML page or a stack. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { validation?: AjvError[] }, request, reply) => {
    if (error instanceof ServiceError) {
      return reply
        .code(ERROR_STATUS[error.code])
        .headers(error.headers)
        .send({ ...error.extra, ...errorBody(error.code, error.detail) });
    }
    if (error instanceof FieldValidationError) {
      return reply.code(400).send(error.fields);
    }
    if (error.validation) {
      const part = (error as { validationContext?: string }).validationContext;
      if (part === 'body') {
        const fields = fieldErrorsFromAjv(error.validation);
        return reply.code(400).send(fields);
      }
      return reply.code(400).send(
        errorBody(
          'invalid_request',
          `Invalid ${part ?? 'request'}: ${Object.entries(fieldErrorsFromAjv(error.validation, '', 'text'))
            .map(([k, v]) => `${k}: ${v.join(' ')}`)
            .join('; ')}`,
        ),
      );
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply
          .code(413)
          .send(
            errorBody(
              'payload_too_large',
              'The request body is larger than 5 MiB. Send less in each request, e.g. split a large onboarding array into several requests.',
            ),
          );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply
          .code(400)
          .send(errorBody('unsupported_content_type', 'Send the request body as application/json.'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply
          .code(400)
          .send(errorBody('invalid_json', 'The request body is empty; send a JSON document.'));
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply
          .code(400)
          .send(
            errorBody(
              'invalid_request',
              'Content-Length does not match the body. Send the length of the body in bytes, or let your HTTP client set the header.',
            ),
          );
    }
    if (error.statusCode === 400 && error instanceof SyntaxError) {
      return reply
        .code(400)
        .send(errorBody('invalid_json', `The request body is not valid JSON: ${error.message}`));
    }
    if (error.statusCode === 429) {
      return reply.code(429).send(errorBody('rate_limited', error.message));
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(errorBody('invalid_request', error.message));
    }
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: every request fails alike until the database is back, so one warn each.
      request.log.warn({ err: error.message }, 'database unavailable');
      return reply
        .code(503)
        .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
        .send(
          errorBody(
            'unavailable',
            `The service cannot reach its database just now. Retry after ${UNAVAILABLE_RETRY_AFTER_SECONDS} s (Retry-After); ` +
              'a request with an Idempotency-Key is safe to repeat with the same key.',
          ),
        );
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .code(500)
      .send(errorBody('internal_error', 'Something went wrong on our side; it has been logged.'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(
        errorBody(
          'not_found',
          `No route ${request.method} ${request.url.split('?')[0]}. Check the method and the path, trailing slash ` +
            'included; the Integration API routes are listed at /docs.',
        ),
      );
  });
}

export const ErrorBodySchema = {
  type: 'object',
  properties: { error: { type: 'string' }, detail: { type: 'string' } },
  required: ['error', 'detail'],
} as const;
