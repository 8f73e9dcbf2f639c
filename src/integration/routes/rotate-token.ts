import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { INVALID_SERVER_TOKEN } from '../../integrators/auth.ts';
import { RotatedToken } from '../../integrators/schemas.ts';
import { DEFAULT_GRACE_PERIOD_SECONDS, MAX_GRACE_PERIOD_SECONDS } from '../../integrators/service.ts';
import { unauthorized } from '../../platform/http/auth.ts';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { serverTokenActor } from '../actor.ts';

export const rotateTokenRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/rotate-token/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'rotateToken',
        summary: 'Rotate the server token',
        description:
          'Issues a new server token. Only the newest token can rotate: a token that has been replaced (in its grace ' +
          'period) gets 403 `forbidden` and changes nothing. The calling token keeps working until ' +
          '`previous_token_expires_at` (after `grace_period_seconds`, default 86400; 0 ends it at once) and then ' +
          'answers 401. At most two tokens are valid at any time, the new one and the caller; an older token still ' +
          'in its grace period ends at once.',
        tags: ['Authentication'],
        body: Type.Optional(
          Type.Object({
            grace_period_seconds: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: MAX_GRACE_PERIOD_SECONDS,
                default: DEFAULT_GRACE_PERIOD_SECONDS,
              }),
            ),
          }),
        ),
        response: {
          201: RotatedToken,
          ...integrationErrors(),
        },
      },
    },
    async (request, reply) => {
      const grace = request.body.grace_period_seconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
      const rotated = await app.ctx.integrators.rotate(
        request.integrator.id,
        request.serverTokenId,
        grace,
        serverTokenActor(request),
      );
      if (!rotated) throw unauthorized(INVALID_SERVER_TOKEN);
      const { token, previousTokenExpiresAt } = rotated;
      request.log.info(
        { integrator_id: request.integrator.id, grace_period_seconds: grace },
        'server token rotated',
      );
      return reply.code(201).send({ token, previous_token_expires_at: previousTokenExpiresAt.toISOString() });
    },
  );
};
