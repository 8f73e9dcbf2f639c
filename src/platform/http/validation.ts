import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { outOfDateRange } from './input-checks.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv, options: { mode: 'full' | 'fast' }) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

function makeAjv(options: Options): Ajv {
  // verbose: each error carries its schema, where ERROR_MESSAGE is read, and its value (messages of dates read it).
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, verbose: true, ...options });
  addFormats(ajv, { mode: 'full' });
  // Dates and date-times are refused outside EARLIEST_DATE … LATEST_DATE on every route, by the format itself.
  for (const name of ['date', 'date-time']) {
    const valid = formatValidator(ajv, name);
    ajv.addFormat(name, {
      type: 'string',
      validate: (value: string) => valid(value) && !outOfDateRange(value),
    });
  }
  return ajv;
}

function formatValidator(ajv: Ajv, name: string): (value: string) => boolean {
  const format = ajv.formats[name];
  if (typeof format === 'function') return format as (value: string) => boolean;
  if (format instanceof RegExp) return (value) => format.test(value);
  if (typeof format === 'object' && typeof format.validate === 'function') {
    return format.validate as (value: string) => boolean;
  }
  throw new Error(`ajv-formats has no ${name} format`);
}

/**
 * A schema's own message for the values it refuses, e.g. `Type.String({ pattern, [ERROR_MESSAGE]: 'Enter …' })`:
 * it replaces the generic message of a `pattern` or `not` in that same schema object (a wrong type keeps its
 * message). It is an OpenAPI extension keyword, so the API documents show it beside the rule.
 */
export const ERROR_MESSAGE = 'x-error-message';

interface VerboseError {
  keyword: string;
  message?: string;
  parentSchema?: Record<string, unknown>;
}

/** `validate`, with each error of a schema that has an ERROR_MESSAGE saying that message. */
function withSchemaMessages(validate: ValidateFunction): ValidateFunction {
  // Fastify passes a second argument (the parent of the root value, so Ajv can coerce it): forwarded as it is.
  const check = ((...args: Parameters<ValidateFunction>) => {
    const valid = validate(...args) as boolean;
    check.errors = valid
      ? null
      : (validate.errors ?? []).map((error) => {
          const own = (error as VerboseError).parentSchema?.[ERROR_MESSAGE];
          return typeof own === 'string' && (error.keyword === 'pattern' || error.keyword === 'not')
            ? { ...error, message: own }
            : error;
        });
    return valid;
  }) as ValidateFunction;
  return Object.assign(check, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

/**
 * Bodies are validated strictly: "5" is not an integer and true is not a string, so an integrator learns
 * about a wrong type instead of having it silently converted. Query strings and path parameters are text
 * by nature and are coerced.
 */
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: true });

/** For routes that validate a body themselves (e.g. one object or an array of them), with the same rules. */
export function compileBodyValidator(schema: object): ValidateFunction {
  return withSchemaMessages(bodyAjv.compile(schema));
}

/**
 * Compiled validators, shared by every app of this process and keyed by the schema's JSON text: a process that builds
 * many apps (the tests, the benches) compiles each distinct schema once, even one a route writes inline.
 */
const validators = new Map<string, ValidateFunction>();

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const strict = httpPart === 'body';
    const key = `${strict ? 'body' : 'text'} ${JSON.stringify(schema)}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = withSchemaMessages((strict ? bodyAjv : textAjv).compile(schema as object));
      validators.set(key, validate);
    }
    return validate;
  });
  // Which part of a request its route's schema refused (never the values): the answer alone does not tell a
  // schema's field errors from a handler's.
  app.addHook('onError', async (request, _reply, error) => {
    const { validation, validationContext } = error as {
      validation?: { instancePath: string }[];
      validationContext?: string;
    };
    if (!validation) return;
    request.log.info(
      { part: validationContext, paths: [...new Set(validation.map((e) => e.instancePath || '/'))] },
      'request refused by its schema',
    );
  });
}
