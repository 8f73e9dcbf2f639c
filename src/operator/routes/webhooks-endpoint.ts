import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Timestamp } from '../../platform/http/schemas.ts';
import { WebhookEndpointView, webhookEndpointView } from '../../webhooks/schemas.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

const errors = operatorErrors({ 400: BadRequest, 404: NotFound });

/** An integrator's webhook endpoint: its state, lifting a 410's disabling, and rotating its secret. */
export const webhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.get(
    '/integrators/:integrator_id/webhook',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Show an integrator’s webhook endpoint',
        description:
          'Its URL, whether a 410 Gone disabled it, how many deliveries are pending and failed, and the state of a ' +
          'secret rotation.',
        tags: ['Webhooks'],
        params: IntegratorParams,
        response: { 200: WebhookEndpointView, ...errors },
      },
    },
    async (request) =>
      webhookEndpointView(await webhooks.endpoint(request.params.integrator_id), app.ctx.clock.now()),
  );

  app.post(
    '/integrators/:integrator_id/webhook/enable',
    {
      schema: {
        operationId: 'enableWebhookEndpoint',
        summary: 'Enable a webhook endpoint disabled by a 410 Gone',
        description:
          'Deliveries to the URL are attempted again; the ones that failed while it was disabled only once ' +
          'redelivered. An endpoint that is not disabled stays as it is. No body.',
        tags: ['Webhooks'],
        params: IntegratorParams,
        response: { 200: WebhookEndpointView, ...errors },
      },
    },
    async (request) => {
      const { integrator_id } = request.params;
      const endpoint = await webhooks.enableEndpoint(integrator_id);
      request.log.info({ integrator_id }, 'webhook endpoint enabled');
      return webhookEndpointView(endpoint, app.ctx.clock.now());
    },
  );

  app.post(
    '/integrators/:integrator_id/webhook-secret/rotate',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Issue a new webhook secret; the previous one keeps signing for 24 hours',
        description:
          'Each delivery carries both signatures until previous_secret_expires_at, so the integrator can switch ' +
          'without missing one. A secret replaced earlier stops at once. No body.',
        tags: ['Webhooks'],
        params: IntegratorParams,
        response: {
          201: Type.Object({
            webhook_secret: Type.String({ description: 'The new secret, shown once.' }),
            previous_secret_expires_at: Timestamp,
          }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { integrator_id } = request.params;
      const rotated = await webhooks.rotateSecret(integrator_id);
      request.log.info({ integrator_id }, 'webhook secret rotated');
      return reply.code(201).send({
        webhook_secret: rotated.secret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
      });
    },
  );
};
