import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WebhookEndpointView, webhookEndpointView } from '../../webhooks/schemas.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

/** An integrator’s webhook endpoint: its URL and state, its deliveries, and a secret rotation under way. */
export const getWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.get(
    '/integrators/:integrator_id/webhook',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Show an integrator’s webhook endpoint',
        description:
          'Its URL, whether a 410 Gone disabled it, how many deliveries are pending and failed, and the state of a ' +
          'secret rotation.',
        tags: ['Webhooks'],
        params: IntegratorParams,
        response: { 200: WebhookEndpointView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) =>
      webhookEndpointView(await webhooks.endpoint(request.params.integrator_id), app.ctx.clock.now()),
  );
};
