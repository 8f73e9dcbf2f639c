import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** A `ping` event to the platform's endpoint. */
export const sendTestWebhookRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook-endpoint/ping/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Send a test ping event',
        description:
          'Delivered, signed and retried like any event; it appears in the events list. Needs `webhooks.manage`.',
        tags: ['Developers'],
        body: Type.Object({}, { additionalProperties: false }),
        response: { 202: Type.Object({ event_id: Type.String() }), ...integrationErrors() },
      },
    },
    async (request, reply) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'webhooks.manage');
      return reply.code(202).send({ event_id: await app.ctx.webhooks.sendTestEvent(integratorId) });
    },
  );
};
