import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors, pageQuery } from '../../platform/http/schemas.ts';
import { WebhookEventView, webhookEventView } from '../../webhooks/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The platform's events, newest first, each with its delivery's state. */
export const listEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events/',
    {
      schema: {
        operationId: 'listEvents',
        summary: 'The platform’s events, newest first, with their delivery',
        description:
          'Cursor pagination with `starting_after` (the last event_id of a page). Needs `events.read`.',
        tags: ['Developers'],
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Enum(['pending', 'delivered', 'failed', 'not_sent'])),
            ...pageQuery('event'),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(WebhookEventView), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'events.read');
      const { status, limit, starting_after } = request.query;
      const page = await app.ctx.webhooks.listEvents({
        integrator_id: integratorId,
        limit,
        ...(status === undefined ? {} : { status }),
        ...(starting_after === undefined ? {} : { starting_after }),
      });
      return { data: page.data.map(webhookEventView), has_more: page.has_more };
    },
  );
};
