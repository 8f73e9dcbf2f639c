import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, IdString, pageQuery, Timestamp } from '../../platform/http/schemas.ts';
import {
  WebhookEventDetailView,
  WebhookEventView,
  webhookEventDetailView,
  webhookEventView,
} from '../../webhooks/schemas.ts';
import { EVENT_DELIVERY_STATUSES } from '../../webhooks/service.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

const EventParams = Type.Object({
  event_id: IdString('evt', 'an event'),
});

const ListQuery = Type.Object(
  {
    integrator_id: Type.Optional(
      IdString('int', 'an integrator', { description: 'Only this integrator’s events.' }),
    ),
    status: Type.Optional(
      Type.Union(
        EVENT_DELIVERY_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Only events whose delivery is in this state.', examples: ['failed'] },
      ),
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

/** The delivery log: events with their delivery state, one event's attempts, and redelivery. */
export const webhookEventRoutes: FastifyPluginAsyncTypebox = async (app) => {
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

  app.post(
    '/webhooks/redeliver',
    {
      schema: {
        operationId: 'redeliverFailedWebhooks',
        summary: 'Send again every delivery that failed at or after a time',
        description:
          'E.g. after an integrator’s outage: every delivery that failed for good since `failed_since` (of one ' +
          'integrator, or of all) starts a new round. Endpoints without a URL or disabled by a 410 are skipped.',
        tags: ['Webhooks'],
        body: Type.Object(
          {
            failed_since: {
              ...Timestamp,
              description: 'Deliveries that failed at or after this time (ISO 8601).',
            },
            integrator_id: Type.Optional(
              IdString('int', 'an integrator', { description: 'Only this integrator’s deliveries.' }),
            ),
          },
          {
            examples: [{ failed_since: '2026-03-01T00:00:00Z', integrator_id: 'int_3fQx8LmN2pRs7TvW9yZb1C' }],
          },
        ),
        response: {
          202: Type.Object({
            redelivered: Type.Integer({ description: 'Deliveries now pending again.' }),
          }),
          ...operatorErrors({ 400: BadRequest }),
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

  app.post(
    '/webhooks/retry-pending',
    {
      schema: {
        operationId: 'retryPendingWebhooks',
        summary: 'Send every pending delivery now',
        description:
          'After a receiver’s outage: every delivery waiting for its next scheduled attempt (of one integrator, or ' +
          'of all) is attempted now, with the same `webhook-id`, instead of after the rest of its retry schedule. ' +
          'An attempt already under way is left to end; if it fails, its next attempt is made at once instead of on the ' +
          'schedule. Endpoints without a URL or disabled by a 410 are skipped.',
        tags: ['Webhooks'],
        body: Type.Object(
          {
            integrator_id: Type.Optional(
              IdString('int', 'an integrator', { description: 'Only this integrator’s deliveries.' }),
            ),
          },
          // An unknown member (a misspelt integrator_id) must not widen the retry to every integrator.
          { additionalProperties: false, examples: [{ integrator_id: 'int_3fQx8LmN2pRs7TvW9yZb1C' }, {}] },
        ),
        response: {
          202: Type.Object({
            count: Type.Integer({
              description:
                'Deliveries whose next attempt is now, and attempts under way that will retry at once.',
            }),
          }),
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const { integrator_id } = request.body;
      const count = await webhooks.retryPending(integrator_id);
      request.log.info({ integrator_id, count }, 'pending webhooks retried now');
      return reply.code(202).send({ count });
    },
  );
};
