import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { Nullable, WebhookEndpoint } from '../../webhooks/endpoint-view.ts';
import { setWebhookEndpoint } from '../../webhooks/set-endpoint.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** Setting (or removing) the platform's webhook URL. */
export const setWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/webhook-endpoint/',
    {
      schema: {
        operationId: 'setWebhookEndpoint',
        summary: 'Set (or remove) the webhook URL',
        description:
          'An http or https URL on a public host; `null` removes it (events are kept and listed, not sent). The first ' +
          'URL ever set comes with the signing `secret`, shown this once. Needs `webhooks.manage`.',
        tags: ['Developers'],
        body: Type.Object(
          { url: Nullable(Type.String({ minLength: 1, maxLength: 2048 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            ...WebhookEndpoint.properties,
            secret: Type.Optional(Type.String({ description: 'whsec_…, only when this set made it.' })),
          }),
          ...integrationErrors(),
        },
      },
    },
    async (request) =>
      setWebhookEndpoint(
        app.ctx,
        app.ctx.config,
        dashboardIntegrator(request),
        request.body.url,
        dashboardActor(request),
      ),
  );
};
