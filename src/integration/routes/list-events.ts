import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors, pageQuery } from '../../platform/http/schemas.ts';
import { eventView, IntegratorEvent } from '../../webhooks/event-view.ts';

const ListQuery = Type.Object(
  {
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only events of this type.' }),
    ),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Events at or after this time (ISO 8601).' }),
    ),
    ...pageQuery('event'),
  },
  { additionalProperties: false },
);

/** Your events, newest first, with their delivery. */
export const listEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.ctx;

  app.get(
    '/events/',
    {
      schema: {
        operationId: 'listEvents',
        summary: 'List your events, newest first, each with its delivery',
        description:
          'Cursor pagination: pass the last `event_id` of a page as `starting_after` for the next; an event recorded ' +
          'meanwhile appears on the first page and never shifts a later one.',
        tags: ['Your webhook endpoint and events'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(IntegratorEvent), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const { since, type, limit, starting_after } = request.query;
      const page = await webhooks.listEvents({
        integrator_id: request.integrator.id,
        ...(type === undefined ? {} : { type }),
        ...(since === undefined ? {} : { since: new Date(since) }),
        limit,
        ...(starting_after === undefined ? {} : { starting_after }),
      });
      return { data: page.data.map(eventView), has_more: page.has_more };
    },
  );
};
