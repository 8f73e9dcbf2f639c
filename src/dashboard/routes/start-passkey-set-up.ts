import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { InviteBody, PasskeyOptions, SIGNED_OUT } from '../schemas.ts';

/** Options for the browser to create a passkey for the person a set-up link is for. */
export const startPasskeySetUpRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/setup/passkey-options/',
    {
      config: SIGNED_OUT,
      schema: {
        operationId: 'startPasskeySetUp',
        summary: 'Options to create a passkey at set-up',
        description:
          'Pass `options` to `navigator.credentials.create()` (as JSON, e.g. with @simplewebauthn/browser) and send ' +
          'the result with `challenge_id` to complete the set-up within 5 minutes.',
        tags: ['Signing in'],
        body: InviteBody,
        response: { 200: PasskeyOptions, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const { challengeId, options } = await app.ctx.signIn.passkeyOptionsForInvite(request.body.invite);
      return { challenge_id: challengeId, options: { ...options } };
    },
  );
};
