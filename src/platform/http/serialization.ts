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
      serialize = fastJson(schema as Parameters<typeof fastJson>[0]) as Serialize;
      serializers.set(key, serialize);
    }
    return serialize;
  });
}
