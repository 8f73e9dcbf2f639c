import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { Type } from 'typebox';
import { ServiceError } from '../platform/errors.ts';
import { API_VERSION } from '../platform/http/openapi.ts';
import type { EventType } from '../webhooks/record-event.ts';
import { EVENT_TYPES, webhookBodySchema } from './webhook-events.ts';

/**
 * The OpenAPI document is generated from the same route schemas that validate requests. It describes the
 * Integration API; the Client and Operator APIs have documents of their own (installApiDocument), and internal
 * routes are left out.
 */

/** The guides linked from the reference page, served as Markdown at /docs/guides/{file}. */
const GUIDES: [string, string][] = [
  ['quickstart.md', 'Quick start: from a fresh clone to a verified sandbox webhook'],
  ['integration-guide.md', 'Integration guide: onboarding, user-login, the page, the session query'],
  ['authentication.md', 'Authentication and server tokens'],
  ['webhooks.md', 'Webhooks: delivery, retries, your endpoint, rotating the secret'],
  ['webhook-events.md', 'Webhook events: every type with an example body, and verification code'],
  ['payments.md', 'Payments and refunds'],
  ['schedules.md', 'Recurring rent'],
  ['receipts.md', 'Receipts and rent statements (PDF)'],
  ['hosted-page.md', 'The hosted payment page'],
  ['iframe.md', 'Embedding the page in an iframe'],
  ['sdk.md', 'The browser SDK'],
  ['errors.md', 'Errors'],
  ['documents.md', 'Documents (KYC, agreements)'],
  ['security.md', 'Security'],
  ['going-live.md', 'Going live with Stripe'],
];
const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

/** Each event type as an OpenAPI 3.1 webhook: what rentpay POSTs to your URL, from the schemas that build it. */
function webhooksSection(): Record<string, OpenAPIV3_1.PathItemObject> {
  return Object.fromEntries(
    (Object.keys(EVENT_TYPES) as EventType[]).map((type) => [
      type,
      {
        post: {
          summary: EVENT_TYPES[type].when,
          description:
            'Signed per Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp`, ' +
            '`webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with your `whsec_` secret).',
          tags: ['Webhook events'],
          // rentpay calls you: your server token plays no part (the signature proves the sender).
          security: [],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: webhookBodySchema(type) } },
          },
          responses: { '2XX': { description: 'Delivered: any 2xx within 15 s. Anything else is retried.' } },
        },
      },
    ]),
  );
}

export async function installOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'rentpay Integration API',
        version: API_VERSION,
        description:
          'Server-to-server API for property platforms: onboard tenants, open payment sessions, read them back, ' +
          'list and refund payments, manage your webhook endpoint and events. Authenticate with ' +
          '`Authorization: Token <server token>`. Errors are JSON: `{"error", "detail"}`, or for invalid fields an ' +
          'object of dotted paths to messages. The webhook events rentpay sends you are listed under ' +
          '**Webhooks**, each with its body.\n\nGuides:\n\n' +
          GUIDES.map(([file, title]) => `- [${title}](/docs/guides/${file})`).join('\n'),
      },
      webhooks: webhooksSection(),
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
    theme: { title: 'rentpay API reference' },
    logo: {
      type: 'image/svg+xml',
      content: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40"><text x="0" y="29" fill="#ffffff" ' +
          'font-family="system-ui, sans-serif" font-size="27" font-weight="700">rentpay</text></svg>',
      ),
      href: '/docs',
      target: '_self',
    },
  });
  app.get(
    '/docs/guides/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const { file } = request.params as { file: string };
      if (!GUIDES.some(([name]) => name === file)) {
        throw new ServiceError('not_found', `No guide ${file}. The guides are listed at /docs.`);
      }
      const text = await fs.readFile(path.join(DOCS_DIR, file), 'utf8');
      return reply.type('text/markdown; charset=utf-8').send(text);
    },
  );
  app.get('/api/third-party/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
