import fastJson from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';

type Serialize = (data: unknown) => string;

/**
 * Compiled response serializers, shared by every app of this process and keyed by the schema's JSON text. Building
 * one (code generation plus an Ajv of its own) was a third of an app's start-up; a process that builds many apps
 * (the tests, the benches) now compiles each distinct schema once, even one a route writes inline.
 */
const serializers = new Map<string, Serialize>();

export function installSerialization(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = serializers.get(key);
    if (!serialize) {
      serialize = fastJson(forSerialization(schema) as Parameters<typeof fastJson>[0]) as Serialize;
      serializers.set(key, serialize);
    }
    return serialize;
  });
}

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Keys that only constrain or describe a value: they do not change how it is written. */
const WRITES_THE_SAME = new Set([
  'type',
  'const',
  'enum',
  'description',
  'title',
  'examples',
  'default',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'format',
]);

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The schema as the serializer is given it: a union it can write by the value's type alone (a value or null,
 * strings of one of several literals) becomes a list of types. fast-json-stringify runs a validator over each
 * option of a union (`anyOf`) to pick one, on every response; a type list is a `typeof` test. OpenAPI and
 * validation keep the schema as written.
 */
export function forSerialization(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerialization);
  if (!isSchema(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // Property names are not schemas; their values are.
    out[key] =
      key === 'properties' && isSchema(value)
        ? Object.fromEntries(
            Object.entries(value).map(([name, property]) => [name, forSerialization(property)]),
          )
        : forSerialization(value);
  }
  const options = out.anyOf;
  if (!Array.isArray(options) || !options.every(isSchema)) return out;
  const typed = unionByType(options as Schema[]);
  if (!typed) return out;
  const { anyOf: _, ...siblings } = out;
  return { ...typed, ...siblings, type: typed.type };
}

/** One schema for a union whose options differ only by the type of their value, or undefined. */
function unionByType(options: Schema[]): Schema | undefined {
  const nullable = options.some((option) => option.type === 'null' && Object.keys(option).length === 1);
  const values = options.filter((option) => !(option.type === 'null' && Object.keys(option).length === 1));
  if (values.length === 0) return undefined;
  const types = new Set(values.map((option) => option.type));
  if (types.size !== 1) return undefined;
  const [type] = types;
  if (type === 'object' || type === 'array') {
    // A nullable object or array: its own schema, or null.
    if (values.length !== 1 || !nullable) return undefined;
    return { ...values[0], type: [type, 'null'] };
  }
  if (typeof type !== 'string' || !PRIMITIVES.has(type)) return undefined;
  // Literals or constrained values of one primitive type, written as that type.
  if (!values.every((option) => Object.keys(option).every((key) => WRITES_THE_SAME.has(key))))
    return undefined;
  return { type: nullable ? [type, 'null'] : type };
}
