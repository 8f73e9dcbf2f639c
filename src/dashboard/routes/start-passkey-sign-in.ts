import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { PasskeyOptions, SIGNED_OUT } from '../schemas.ts';

/** Options for the browser to sign in with a passkey. */
export const startPasskeySignInRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sign-in/passkey-options/',
    {
      config: SIGNED_OUT,
      preValidation: optionalBody,
      schema: {
        operationId: 'startPasskeySignIn',
        summary: 'Options to sign in with a passkey',
        description:
          'Pass `options` to `navigator.credentials.get()`; send what it returns with `challenge_id` to ' +
          'sign-in/passkey/ within 5 minutes. The browser offers the person’s own passkeys for this site.',
        tags: ['Signing in'],
        response: { 200: PasskeyOptions, ...integrationErrors() },
      },
    },
    async () => {
      const { challengeId, options } = await app.ctx.signIn.passkeys.authenticationOptions();
      return { challenge_id: challengeId, options: { ...options } };
    },
  );
};
