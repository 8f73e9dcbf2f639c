import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { generateWebhookSecret } from '../../integrators/service.ts';
import { FieldValidationError } from '../../platform/errors.ts';
import { integrationErrors, optionalBody, Timestamp } from '../../platform/http/schemas.ts';
import { checkWebhookUrl } from '../../webhooks/address.ts';
import { type IntegratorEndpoint, SECRET_OVERLAP_MS } from '../../webhooks/service.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const WebhookEndpoint = Type.Object(
  {
    url: Nullable(
      Type.String({ description: 'Where events are sent; null: none (events are kept and listed).' }),
    ),
    state: Type.Enum(['enabled', 'disabled'], {
      description:
        '`disabled`: the URL answered 410 Gone, so nothing is sent to it until you PUT a URL again.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'While a replaced secret still signs beside the current one: when it stops.',
    }),
  },
  { title: 'WebhookEndpoint' },
);

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

function endpointView(row: IntegratorEndpoint) {
  return {
    url: row.url,
    state: row.state,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    previous_secret_expires_at:
      row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at).toISOString(),
  };
}

const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

/** Your webhook endpoint: see it, set its URL, rotate its secret, send yourself a test event. */
export const integrationWebhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.ctx;

  app.get(
    '/webhook-endpoint/',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Show your webhook endpoint',
        tags: ['Your webhook endpoint and events'],
        response: { 200: WebhookEndpoint, ...integrationErrors() },
      },
    },
    async (request) => endpointView(await webhooks.integratorEndpoint(request.integrator.id)),
  );

  // Where events go and how they are signed belongs to the newest token: a leaked, replaced one cannot take it over.
  const newestTokenOnly = (action: string) => async (request: FastifyRequest) =>
    app.ctx.integrators.assertNewestToken(request.integrator.id, request.serverTokenId, action);

  app.put(
    '/webhook-endpoint/',
    {
      preHandler: newestTokenOnly('change the webhook endpoint'),
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
        { firstWebhookSecret: firstSecret },
      );
      if (url !== null) await webhooks.enableEndpoint(integratorId);
      request.log.info(
        { integrator_id: integratorId, webhook_url: url },
        'webhook endpoint set by its integrator',
      );
      const view = endpointView(await webhooks.integratorEndpoint(integratorId));
      // Only a secret minted by this very request is shown: an existing one never is (rotate-secret/ gives a new one).
      return updated.webhook_secret === firstSecret ? { ...view, secret: firstSecret } : view;
    },
  );

  app.post(
    '/webhook-endpoint/rotate-secret/',
    {
      preValidation: optionalBody,
      preHandler: newestTokenOnly('rotate the webhook secret'),
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Issue a new signing secret; the previous one keeps signing during the overlap',
        description:
          'During the overlap each delivery carries two signatures (old and new secret) in `webhook-signature`, so ' +
          'you can switch without losing a delivery; then only the new secret signs. A secret replaced earlier ' +
          'stops at once. Only your newest server token can rotate (a replaced token gets 403 `forbidden`).',
        tags: ['Your webhook endpoint and events'],
        body: Type.Object(
          {
            overlap_seconds: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: MAX_OVERLAP_SECONDS,
                default: SECRET_OVERLAP_MS / 1000,
                description:
                  'How long the previous secret keeps signing: 0 to 604800 (7 days); 86400 unless given.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            secret: Type.String({ description: 'The new secret (whsec_…), shown once.' }),
            previous_secret_expires_at: Timestamp,
          }),
          ...integrationErrors(),
        },
      },
    },
    async (request, reply) => {
      const integratorId = request.integrator.id;
      const overlapSeconds = request.body.overlap_seconds ?? SECRET_OVERLAP_MS / 1000;
      const rotated = await webhooks.rotateSecret(integratorId, overlapSeconds * 1000);
      request.log.info(
        { integrator_id: integratorId, overlap_seconds: overlapSeconds },
        'webhook secret rotated by its integrator',
      );
      return reply.code(201).send({
        secret: rotated.secret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
      });
    },
  );

  app.post(
    '/webhook-endpoint/test/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Send yourself a signed `ping` event',
        description:
          'A `ping` event (data `{"integrator_id"}`) is recorded and delivered like any other: to your URL if you ' +
          'have one, and to `rentpay listen`. Follow it in GET /api/third-party/events/.',
        tags: ['Your webhook endpoint and events'],
        response: { 202: Type.Object({ event_id: Type.String() }), ...integrationErrors() },
      },
    },
    async (request, reply) => {
      const eventId = await webhooks.sendTestEvent(request.integrator.id);
      request.log.info({ integrator_id: request.integrator.id, event_id: eventId }, 'test webhook requested');
      return reply.code(202).send({ event_id: eventId });
    },
  );
};
