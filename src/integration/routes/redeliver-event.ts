import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import { eventView, IntegratorEvent } from '../../webhooks/event-view.ts';

/** Sending one of your events again. */
export const redeliverEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.ctx;

  app.post(
    '/events/:event_id/redeliver/',
    {
      schema: {
        operationId: 'redeliverEvent',
        summary: 'Send one of your events again, with the same webhook-id',
        description:
          'A new round of the retry schedule, starting now. 409 when you have no URL, the endpoint is disabled by ' +
          'a 410 (PUT a URL to enable it), or an attempt is under way (at most 15 s).',
        tags: ['Your webhook endpoint and events'],
        params: Type.Object({ event_id: IdString('evt', 'an event') }),
        response: { 202: IntegratorEvent, ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }) },
      },
    },
    async (request, reply) => {
      const { event_id } = request.params;
      await webhooks.integratorEvent(
        request.integrator.id,
        event_id,
        `No event ${event_id}. List yours with GET /api/third-party/events/.`,
      );
      await webhooks.redeliver(event_id);
      request.log.info(
        { event_id, integrator_id: request.integrator.id },
        'webhook redelivery requested by its integrator',
      );
      const { event } = await webhooks.getEvent(event_id);
      return reply.code(202).send(eventView(event));
    },
  );
};
