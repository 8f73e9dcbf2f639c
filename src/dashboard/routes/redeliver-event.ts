import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ErrorResponse, IdString, integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { WebhookEventView, webhookEventView } from '../../webhooks/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** Sends one of the platform's events again, with the same webhook-id. */
export const redeliverEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:event_id/redeliver/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'redeliverEvent',
        summary: 'Send an event again',
        description:
          'A new round of the retry schedule, starting now, with the same webhook-id. 409 when there is no URL, a ' +
          '410 disabled the endpoint, or an attempt is under way. Needs `webhooks.manage`.',
        tags: ['Developers'],
        params: Type.Object({ event_id: IdString('evt', 'an event') }),
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: WebhookEventView, ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }) },
      },
    },
    async (request, reply) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'webhooks.manage');
      await app.ctx.webhooks.integratorEvent(integratorId, request.params.event_id);
      await app.ctx.webhooks.redeliver(request.params.event_id);
      const { event } = await app.ctx.webhooks.getEvent(request.params.event_id);
      return reply.code(202).send(webhookEventView(event));
    },
  );
};
