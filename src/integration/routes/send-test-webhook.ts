import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';

/** A signed `ping` event, to check your endpoint. */
export const sendTestWebhookRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.ctx;

  app.post(
    '/webhook-endpoint/test/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Send yourself a signed `ping` event',
        description:
          'A `ping` event (data `{"integrator_id"}`) is recorded and delivered like any other: to your URL if you ' +
          'have one, and to `rentpay listen`. Follow it in GET /api/third-party/events/.',
        tags: ['Your webhook endpoint and events'],
        response: { 202: Type.Object({ event_id: Type.String() }), ...integrationErrors() },
      },
    },
    async (request, reply) => {
      const eventId = await webhooks.sendTestEvent(request.integrator.id);
      request.log.info({ integrator_id: request.integrator.id, event_id: eventId }, 'test webhook requested');
      return reply.code(202).send({ event_id: eventId });
    },
  );
};
