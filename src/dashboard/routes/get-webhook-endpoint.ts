import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { endpointView, WebhookEndpoint } from '../../webhooks/endpoint-view.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The platform's webhook endpoint. */
export const getWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/webhook-endpoint/',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'The platform’s webhook endpoint',
        tags: ['Developers'],
        response: { 200: WebhookEndpoint, ...integrationErrors() },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'events.read');
      return endpointView(await app.ctx.webhooks.integratorEndpoint(integratorId));
    },
  );
};
