import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { WebhookEventView, webhookEventView } from '../../webhooks/schemas.ts';
import { BadRequest, EventParams, NotFound, operatorErrors } from '../schemas.ts';

export const redeliverWebhookEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.post(
    '/webhooks/events/:event_id/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhookEvent',
        summary: 'Send one event again (same webhook-id), on a new round of the retry schedule',
        description:
          'Also an event already delivered. The answer is the event, its delivery pending again. No body.',
        tags: ['Webhooks'],
        params: EventParams,
        response: {
          202: WebhookEventView,
          ...operatorErrors({
            400: BadRequest,
            404: NotFound,
            409: {
              ...ErrorResponse,
              description:
                'conflict: the integrator has no webhook URL, its endpoint is disabled (410 Gone), or an attempt is ' +
                'under way.',
            },
          }),
        },
      },
    },
    async (request, reply) => {
      const { event_id } = request.params;
      await webhooks.redeliver(event_id);
      request.log.info({ event_id }, 'webhook redelivery requested');
      const { event } = await webhooks.getEvent(event_id);
      return reply.code(202).send(webhookEventView(event));
    },
  );
};
