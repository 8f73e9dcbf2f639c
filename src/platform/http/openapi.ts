import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const API_VERSION = '1.0.0';

/**
 * The OpenAPI document is generated from the same route schemas that validate requests. It describes the
 * Integration API; operator and internal routes are left out.
 */
export async function installOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'rentpay Integration API',
        version: API_VERSION,
        description:
          'Server-to-server API for property platforms: onboard tenants, open payment sessions, read them back. ' +
          'Authenticate with `Authorization: Token <server token>`. Errors are JSON: `{"error", "detail"}`, or for ' +
          'invalid fields an object of dotted paths to messages.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          ServerToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'The word `Token`, a space, then your server token: `Token rp_sandbox_…`.',
          },
        },
      },
      security: [{ ServerToken: [] }],
    },
    transform: ({ schema, url }) => ({
      schema: {
        ...schema,
        hide: schema?.hide === true || !url.startsWith('/api/third-party/'),
      } as typeof schema,
      url,
    }),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false },
  });
  app.get('/api/third-party/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
