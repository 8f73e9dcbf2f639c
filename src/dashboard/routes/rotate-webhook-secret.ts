import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { RotatedSecret } from '../../webhooks/schemas.ts';
import { SECRET_OVERLAP_MS } from '../../webhooks/service.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** A new webhook signing secret, with an overlap during which both sign. */
export const rotateWebhookSecretRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook-endpoint/rotate-secret/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the webhook signing secret',
        description:
          'The new secret is shown this once. The previous one keeps signing beside it for `overlap_seconds` ' +
          '(default 86400, at most 604800): each delivery then carries both signatures. Needs `webhooks.manage`.',
        tags: ['Developers'],
        body: Type.Object(
          {
            overlap_seconds: Type.Optional(
              Type.Integer({ minimum: 0, maximum: 7 * 24 * 3600, default: SECRET_OVERLAP_MS / 1000 }),
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
      const overlapSeconds = request.body.overlap_seconds ?? SECRET_OVERLAP_MS / 1000;
      const rotated = await app.ctx.webhooks.rotateSecret(
        dashboardIntegrator(request),
        dashboardActor(request),
        overlapSeconds * 1000,
      );
      return reply.code(201).send({
        secret: rotated.secret,
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
      });
    },
  );
};
