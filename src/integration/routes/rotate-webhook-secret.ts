import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { RotatedSecret } from '../../webhooks/schemas.ts';
import { SECRET_OVERLAP_MS } from '../../webhooks/service.ts';
import { serverTokenActor } from '../actor.ts';
import { newestTokenOnly } from '../webhook-endpoint.ts';

const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

/** Rotating your webhook signing secret. */
export const rotateWebhookSecretRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.ctx;

  app.post(
    '/webhook-endpoint/rotate-secret/',
    {
      preValidation: optionalBody,
      preHandler: newestTokenOnly(app, 'rotate the webhook secret'),
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
          201: RotatedSecret,
          ...integrationErrors(),
        },
      },
    },
    async (request, reply) => {
      const integratorId = request.integrator.id;
      const overlapSeconds = request.body.overlap_seconds ?? SECRET_OVERLAP_MS / 1000;
      const rotated = await webhooks.rotateSecret(
        integratorId,
        serverTokenActor(request),
        overlapSeconds * 1000,
      );
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
};
