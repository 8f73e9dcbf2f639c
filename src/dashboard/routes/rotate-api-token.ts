import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RotatedToken } from '../../integrators/schemas.ts';
import { DEFAULT_GRACE_PERIOD_SECONDS, MAX_GRACE_PERIOD_SECONDS } from '../../integrators/service.ts';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** A new server token for the platform; the newest one before it keeps working for the grace period. */
export const rotateApiTokenRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api-token/rotate/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'rotateApiToken',
        summary: 'Rotate the platform’s server token',
        description:
          'Issues a new server token, shown this once. The newest token before it keeps working until ' +
          '`previous_token_expires_at` (`grace_period_seconds`, default 86400; 0 ends it at once); any older ' +
          'token ends now. Needs `credentials.manage` (admin, developer).',
        tags: ['Developers'],
        body: Type.Object(
          {
            grace_period_seconds: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: MAX_GRACE_PERIOD_SECONDS,
                default: DEFAULT_GRACE_PERIOD_SECONDS,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: RotatedToken,
          ...integrationErrors(),
        },
      },
    },
    async (request, reply) => {
      const grace = request.body.grace_period_seconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
      const rotated = await app.ctx.integrators.rotateNewest(
        dashboardIntegrator(request),
        grace,
        dashboardActor(request),
      );
      return reply.code(201).send({
        token: rotated.token,
        previous_token_expires_at: rotated.previousTokenExpiresAt.toISOString(),
      });
    },
  );
};
