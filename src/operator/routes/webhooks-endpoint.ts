import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Timestamp } from '../../platform/http/schemas.ts';
import { WebhookEndpointView, webhookEndpointView } from '../../webhooks/schemas.ts';
import { WebhookService } from '../../webhooks/service.ts';
import { operatorErrors } from '../schemas.ts';

const IntegratorParams = Type.Object({ integrator_id: Type.String({ maxLength: 64 }) });

/** An integrator's webhook endpoint: its state, lifting a 410's disabling, and rotating its secret. */
export const webhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = new WebhookService(app.ctx.db, app.ctx.clock);

  app.get(
    '/integrators/:integrator_id/webhook',
    {
      schema: {
        summary: 'Show an integrator’s webhook endpoint',
        tags: ['Operator'],
        params: IntegratorParams,
        response: { 200: WebhookEndpointView, ...operatorErrors() },
      },
    },
    async (request) =>
      webhookEndpointView(await webhooks.endpoint(request.params.integrator_id), app.ctx.clock.now()),
  );

  app.post(
    '/integrators/:integrator_id/webhook/enable',
    {
      schema: {
        summary: 'Enable a webhook endpoint disabled by a 410 Gone',
        tags: ['Operator'],
        params: IntegratorParams,
        response: { 200: WebhookEndpointView, ...operatorErrors() },
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
        summary: 'Issue a new webhook secret; the previous one keeps signing for 24 hours',
        tags: ['Operator'],
        params: IntegratorParams,
        response: {
          201: Type.Object({
            webhook_secret: Type.String({ description: 'The new secret, shown once.' }),
            previous_secret_expires_at: Timestamp,
          }),
          ...operatorErrors(),
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
