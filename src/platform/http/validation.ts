import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv, options: { mode: 'full' | 'fast' }) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, ...options });
  addFormats(ajv, { mode: 'full' });
  return ajv;
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
  return bodyAjv.compile(schema);
}

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
  );
}
