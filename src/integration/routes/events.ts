import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../platform/errors.ts';
import {
  ErrorResponse,
  IdString,
  integrationErrors,
  pageQuery,
  Timestamp,
} from '../../platform/http/schemas.ts';
import { EVENT_DELIVERY_STATUSES, type EventRow } from '../../webhooks/service.ts';

export const IntegratorEvent = Type.Object(
  {
    event_id: Type.String({ description: 'Also the webhook-id header of every delivery of it.' }),
    type: Type.String({ description: 'payment_success, payment_failed, … (see Webhook events).' }),
    created_at: Timestamp,
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'The webhook body’s `data`.' }),
    delivery: Type.Object({
      status: Type.Enum([...EVENT_DELIVERY_STATUSES], {
        description:
          '`not_sent`: you had no webhook URL when it happened; `failed`: every attempt of its round failed.',
      }),
      attempts: Type.Integer({ description: 'Attempts so far, redeliveries included.' }),
    }),
  },
  { title: 'Event' },
);

function eventView(row: EventRow) {
  return {
    event_id: row.id,
    type: row.type,
    created_at: new Date(row.created_at).toISOString(),
    data: row.data,
    delivery: { status: row.status ?? ('not_sent' as const), attempts: row.attempts ?? 0 },
  };
}

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

/** Your events, newest first, with their delivery; and sending one again. */
export const integrationEventRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      const unknown = new ServiceError(
        'not_found',
        `No event ${event_id}. List yours with GET /api/third-party/events/.`,
      );
      const owned = await webhooks.getEvent(event_id).catch(() => undefined);
      // Another integrator's event is as unknown as one that does not exist.
      if (owned?.event.integrator_id !== request.integrator.id) throw unknown;
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
