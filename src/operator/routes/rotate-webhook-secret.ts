import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Timestamp } from '../../platform/http/schemas.ts';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

export const rotateWebhookSecretRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

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
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const { integrator_id } = request.params;
      const rotated = await webhooks.rotateSecret(integrator_id, operatorTokenActor(request));
      request.log.info({ integrator_id }, 'webhook secret rotated');
      return reply.code(201).send({
        webhook_secret: rotated.secret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
      });
    },
  );
};
