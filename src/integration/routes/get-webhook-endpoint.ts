import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { endpointView, WebhookEndpoint } from '../../webhooks/endpoint-view.ts';

/** Your webhook endpoint: its URL, its state and a secret rotation under way. */
export const getWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.ctx;

  app.get(
    '/webhook-endpoint/',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Show your webhook endpoint',
        tags: ['Your webhook endpoint and events'],
        response: { 200: WebhookEndpoint, ...integrationErrors() },
      },
    },
    async (request) => endpointView(await webhooks.integratorEndpoint(request.integrator.id)),
  );
};
