import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AuthenticationResponseJSON } from '../../people/passkeys.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { SIGNED_OUT, SignedInResponse, signedInReply, WebAuthnResponse } from '../schemas.ts';

/** Signing in with a passkey alone. */
export const signInWithPasskeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sign-in/passkey/',
    {
      config: SIGNED_OUT,
      schema: {
        operationId: 'signInWithPasskey',
        summary: 'Sign in with a passkey',
        description:
          'A passkey is both factors (the device, and its PIN or biometric): no password is asked. 401 when it is ' +
          'not one of this dashboard’s or the challenge was used or expired.',
        tags: ['Signing in'],
        body: Type.Object(
          { challenge_id: Type.String({ maxLength: 64 }), response: WebAuthnResponse },
          { additionalProperties: false },
        ),
        response: { 200: SignedInResponse, ...integrationErrors() },
      },
    },
    async (request, reply) => {
      const result = await app.ctx.signIn.signInWithPasskey(
        request.body.challenge_id,
        request.body.response as unknown as AuthenticationResponseJSON,
        { address: request.ip },
      );
      request.log.info({ user_id: result.person.id }, 'dashboard sign-in with a passkey');
      return signedInReply(reply, app.ctx.dashboardCookie, result);
    },
  );
};
