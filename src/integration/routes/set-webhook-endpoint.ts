import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { Nullable, WebhookEndpoint } from '../../webhooks/endpoint-view.ts';
import { setWebhookEndpoint } from '../../webhooks/set-endpoint.ts';
import { serverTokenActor } from '../actor.ts';
import { newestTokenOnly } from '../webhook-endpoint.ts';

const WithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.Optional(
      Type.String({
        description:
          'The signing secret (whsec_…), made and shown once: when the first URL ever is set. Never shown again.',
      }),
    ),
  },
  { title: 'WebhookEndpointWithSecret' },
);

/** Setting (or removing) your webhook URL. */
export const setWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/webhook-endpoint/',
    {
      preHandler: newestTokenOnly(app, 'change the webhook endpoint'),
      schema: {
        operationId: 'setWebhookEndpoint',
        summary: 'Set (or remove) your webhook URL',
        description:
          'An http or https URL on a public host. The first URL ever set (when no URL was ever set and the secret ' +
          'was never rotated) comes with a newly made signing `secret`, shown this once; later sets never show a ' +
          'secret: get a new one with rotate-secret/. Setting a URL re-enables an endpoint a 410 Gone disabled. ' +
          '`null` removes it: events are then kept and listed, not sent. Only your newest server token can change ' +
          'the endpoint (a replaced token in its grace period gets 403 `forbidden`).',
        tags: ['Your webhook endpoint and events'],
        body: Type.Object(
          { url: Nullable(Type.String({ minLength: 1, maxLength: 2048 })) },
          { additionalProperties: false },
        ),
        response: { 200: WithSecret, ...integrationErrors() },
      },
    },
    async (request) => {
      const { url } = request.body;
      const integratorId = request.integrator.id;
      const answer = await setWebhookEndpoint(
        app.ctx,
        app.ctx.config,
        integratorId,
        url,
        serverTokenActor(request),
      );
      request.log.info(
        { integrator_id: integratorId, webhook_url: url },
        'webhook endpoint set by its integrator',
      );
      return answer;
    },
  );
};
