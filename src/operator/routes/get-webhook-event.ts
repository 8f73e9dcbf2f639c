import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WebhookEventDetailView, webhookEventDetailView } from '../../webhooks/schemas.ts';
import { BadRequest, EventParams, NotFound, operatorErrors } from '../schemas.ts';

export const getWebhookEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.get(
    '/webhooks/events/:event_id',
    {
      schema: {
        operationId: 'getWebhookEvent',
        summary: 'Show one event, the body sent and every delivery attempt',
        description:
          'Each attempt with its time, the answer’s status (or the network error) and its duration.',
        tags: ['Webhooks'],
        params: EventParams,
        response: { 200: WebhookEventDetailView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => {
      const { event, attempts } = await webhooks.getEvent(request.params.event_id);
      return webhookEventDetailView(event, attempts);
    },
  );
};
