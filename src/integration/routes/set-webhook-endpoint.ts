import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { generateWebhookSecret } from '../../integrators/service.ts';
import { FieldValidationError } from '../../platform/errors.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { checkWebhookUrl } from '../../webhooks/address.ts';
import { serverTokenActor } from '../actor.ts';
import { endpointView, Nullable, newestTokenOnly, WebhookEndpoint } from '../webhook-endpoint.ts';

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
  const { webhooks } = app.ctx;

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
      if (url !== null && !/^https?:\/\//i.test(url)) {
        throw new FieldValidationError({
          url: ['Enter an http or https URL, e.g. https://example.com/webhooks.'],
        });
      }
      await checkWebhookUrl(url, {
        allowPrivate: app.ctx.config.allowPrivateWebhookHosts,
        sandbox: app.ctx.config.serviceEnv === 'sandbox',
        field: 'url',
      });
      const firstSecret = generateWebhookSecret();
      const updated = await app.ctx.integrators.update(
        integratorId,
        { webhook_url: url },
        serverTokenActor(request),
        { firstWebhookSecret: firstSecret },
      );
      if (url !== null) await webhooks.enableEndpoint(integratorId, serverTokenActor(request));
      request.log.info(
        { integrator_id: integratorId, webhook_url: url },
        'webhook endpoint set by its integrator',
      );
      const view = endpointView(await webhooks.integratorEndpoint(integratorId));
      // Only a secret minted by this very request is shown: an existing one never is (rotate-secret/ gives a new one).
      return updated.webhook_secret === firstSecret ? { ...view, secret: firstSecret } : view;
    },
  );
};
