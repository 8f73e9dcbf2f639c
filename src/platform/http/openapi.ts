import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';

/** The version of every API document (Integration, Client, Operator): they change together. */
export const API_VERSION = '1.0.0';

export interface ApiDocumentOptions {
  /** The name under which @fastify/swagger decorates the API's scope; one per API (`swagger` is the Integration API's). */
  decorator: string;
  title: string;
  description: string;
  publicUrl: string;
  /** The API's one security scheme: its name in the document, and the scheme. */
  security: [string, OpenAPIV3_1.SecuritySchemeObject];
  tags: OpenAPIV3_1.TagObject[];
}

/**
 * The OpenAPI 3.1 document of one API, generated from the schemas of the routes registered in `app`'s scope after
 * this call (the same schemas that validate them), and served at `openapi.json` under the scope's prefix.
 *
 * @fastify/swagger collects the routes with an onRoute hook of the scope it is registered in and decorates that
 * scope, so each API registers its own copy under its own decorator name. Call this in the API's plugin before
 * registering the routes, and before (outside) the scope whose onRequest hooks authenticate: the document is public.
 */
export async function installApiDocument(app: FastifyInstance, options: ApiDocumentOptions): Promise<void> {
  const [schemeName, scheme] = options.security;
  await app.register(swagger, {
    decorator: options.decorator,
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: API_VERSION, description: options.description },
      servers: [{ url: options.publicUrl }],
      components: { securitySchemes: { [schemeName]: scheme } },
      security: [{ [schemeName]: [] }],
      tags: options.tags,
    },
  });
  const document = (app as unknown as Record<string, () => OpenAPIV3_1.Document>)[options.decorator];
  if (typeof document !== 'function')
    throw new Error(`@fastify/swagger did not decorate ${options.decorator}`);
  app.get('/openapi.json', { schema: { hide: true } }, async () => document());
}
