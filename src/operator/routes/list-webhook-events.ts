import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdString, pageQuery } from '../../platform/http/schemas.ts';
import { WebhookEventView, webhookEventView } from '../../webhooks/schemas.ts';
import { EVENT_DELIVERY_STATUSES } from '../../webhooks/service.ts';
import { BadRequest, operatorErrors } from '../schemas.ts';

const ListQuery = Type.Object(
  {
    integrator_id: Type.Optional(
      IdString('int', 'an integrator', { description: 'Only this integrator’s events.' }),
    ),
    status: Type.Optional(
      Type.Enum([...EVENT_DELIVERY_STATUSES], {
        description: 'Only events whose delivery is in this state.',
        examples: ['failed'],
      }),
    ),
    type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only events of this type, e.g. payment_success.',
        examples: ['payment_success'],
      }),
    ),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Events recorded at or after this time.' }),
    ),
    ...pageQuery('event'),
  },
  { additionalProperties: false },
);

/** The delivery log: events with the state of their delivery. */
export const listWebhookEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.get(
    '/webhooks/events',
    {
      schema: {
        operationId: 'listWebhookEvents',
        summary: 'List events and their webhook deliveries, newest first',
        description:
          'Every integrator’s events, filtered by integrator, delivery status, type or time; `limit` per page (1 to ' +
          '100, default 20). For the next page pass the last event_id as `starting_after` while `has_more` is true.',
        tags: ['Webhooks'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(WebhookEventView), has_more: Type.Boolean() }),
          ...operatorErrors({ 400: BadRequest }),
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
};
