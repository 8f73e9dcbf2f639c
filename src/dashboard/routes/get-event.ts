import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import { WebhookEventDetailView, webhookEventDetailView } from '../../webhooks/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** One event with every delivery attempt. */
export const getEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/:event_id/',
    {
      schema: {
        operationId: 'getEvent',
        summary: 'One event with its delivery attempts',
        description:
          'Each attempt with its time, the answer’s status code (or the network error), its latency and when the ' +
          'next one is due. Needs `events.read`.',
        tags: ['Developers'],
        params: Type.Object({ event_id: IdString('evt', 'an event') }),
        response: { 200: WebhookEventDetailView, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'events.read');
      const { event, attempts } = await app.ctx.webhooks.integratorEvent(
        integratorId,
        request.params.event_id,
      );
      return webhookEventDetailView(event, attempts);
    },
  );
};
