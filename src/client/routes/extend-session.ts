import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Timestamp } from '../../platform/http/schemas.ts';
import { clientErrors } from '../../sessions/client-schemas.ts';
import { secondsUntil } from '../session-expiry.ts';

export const extendSessionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/session/extend',
    {
      schema: {
        operationId: 'extendSession',
        summary: 'Keep the tenant signed in',
        description:
          'The page’s "Keep me signed in": the user session token lives another token lifetime from now (15 minutes ' +
          'by default), but never past the end of its payment session (30 minutes after user-login by default). ' +
          'Once `expires_in_seconds` equals the time left in the session, it can be extended no further: the ' +
          'platform logs the tenant in again (user-login) for a new session. No body.',
        tags: ['Session'],
        response: {
          200: Type.Object({
            token_expires_at: Timestamp,
            expires_at: { ...Timestamp, description: 'The payment session’s end, fixed at user-login.' },
            expires_in_seconds: Type.Integer({
              minimum: 0,
              description: 'Seconds until this token or its session lapses, whichever comes first.',
            }),
            extendable: Type.Boolean({
              description:
                'False once the token lives as long as its session: extending again changes nothing.',
            }),
          }),
          ...clientErrors(),
        },
      },
    },
    async (request) => {
      const { token_expires_at, expires_at } = await app.ctx.sessions.extendToken(request.client.session.id);
      request.log.info({ session_id: request.client.session.id }, 'session extended');
      return {
        token_expires_at: token_expires_at.toISOString(),
        expires_at: expires_at.toISOString(),
        expires_in_seconds: secondsUntil(app.ctx.clock.now(), token_expires_at, expires_at),
        extendable: token_expires_at.getTime() < expires_at.getTime(),
      };
    },
  );
};
