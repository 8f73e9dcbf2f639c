import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, pageQuery, Timestamp } from '../../platform/http/schemas.ts';
import {
  WebhookEventDetailView,
  WebhookEventView,
  webhookEventDetailView,
  webhookEventView,
} from '../../webhooks/schemas.ts';
import { EVENT_DELIVERY_STATUSES, WebhookService } from '../../webhooks/service.ts';
import { operatorErrors } from '../schemas.ts';

const EventParams = Type.Object({ event_id: Type.String({ maxLength: 64 }) });

const ListQuery = Type.Object(
  {
    integrator_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    status: Type.Optional(Type.Union(EVENT_DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Events recorded at or after this time.' }),
    ),
    ...pageQuery('event'),
  },
  { additionalProperties: false },
);

/** The delivery log: events with their delivery state, one event's attempts, and redelivery. */
export const webhookEventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = new WebhookService(app.ctx.db, app.ctx.clock);

  app.get(
    '/webhooks/events',
    {
      schema: {
        summary: 'List events and their webhook deliveries, newest first',
        tags: ['Operator'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(WebhookEventView), has_more: Type.Boolean() }),
          ...operatorErrors(),
        },
      },
    },
    async (request) => {
      const { since, ...filter } = request.query;
      const page = await webhooks.listEvents({
        ...filter,
        since: since === undefined ? undefined : new Date(since),
      });
      return { data: page.data.map(webhookEventView), has_more: page.has_more };
    },
  );

  app.get(
    '/webhooks/events/:event_id',
    {
      schema: {
        summary: 'Show one event, the body sent and every delivery attempt',
        tags: ['Operator'],
        params: EventParams,
        response: { 200: WebhookEventDetailView, ...operatorErrors() },
      },
    },
    async (request) => {
      const { event, attempts } = await webhooks.getEvent(request.params.event_id);
      return webhookEventDetailView(event, attempts);
    },
  );

  app.post(
    '/webhooks/events/:event_id/redeliver',
    {
      schema: {
        summary: 'Send one event again (same webhook-id), on a new round of the retry schedule',
        tags: ['Operator'],
        params: EventParams,
        response: { 202: WebhookEventView, ...operatorErrors(), 409: ErrorResponse },
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

  app.post(
    '/webhooks/redeliver',
    {
      schema: {
        summary: 'Send again every delivery that failed at or after a time',
        tags: ['Operator'],
        body: Type.Object({
          failed_since: Timestamp,
          integrator_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
        response: {
          202: Type.Object({
            redelivered: Type.Integer({ description: 'Deliveries now pending again.' }),
          }),
          ...operatorErrors(),
        },
      },
    },
    async (request, reply) => {
      const { failed_since, integrator_id } = request.body;
      const redelivered = await webhooks.redeliverFailed(new Date(failed_since), integrator_id);
      request.log.info({ failed_since, integrator_id, redelivered }, 'failed webhooks redelivered');
      return reply.code(202).send({ redelivered });
    },
  );
};
