import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WebhookEndpointView, webhookEndpointView } from '../../webhooks/schemas.ts';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

/** Lifts the disabling of an endpoint that answered 410 Gone. */
export const enableWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.post(
    '/integrators/:integrator_id/webhook/enable',
    {
      schema: {
        operationId: 'enableWebhookEndpoint',
        summary: 'Enable a webhook endpoint disabled by a 410 Gone',
        description:
          'Deliveries to the URL are attempted again; the ones that failed while it was disabled only once ' +
          'redelivered. An endpoint that is not disabled stays as it is. No body.',
        tags: ['Webhooks'],
        params: IntegratorParams,
        response: { 200: WebhookEndpointView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => {
      const { integrator_id } = request.params;
      const endpoint = await webhooks.enableEndpoint(integrator_id, operatorTokenActor(request));
      request.log.info({ integrator_id }, 'webhook endpoint enabled');
      return webhookEndpointView(endpoint, app.ctx.clock.now());
    },
  );
};
