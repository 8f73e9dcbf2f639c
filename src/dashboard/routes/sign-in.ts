import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { SIGNED_OUT, SignedInResponse, signedInReply } from '../schemas.ts';

/** Signing in with email, password and an authenticator-app code. */
export const signInRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sign-in/',
    {
      config: SIGNED_OUT,
      schema: {
        operationId: 'signIn',
        summary: 'Sign in with email, password and authenticator-app code',
        description:
          'Sets the session cookie (HttpOnly, SameSite=Strict) and answers who is signed in with the CSRF token. ' +
          'Every failure gets the same 401, whether or not the email belongs to anyone; a code works once. After 5 ' +
          'failures for an email within 15 minutes, or 20 from an address, sign-ins answer 429 `too_many_attempts` ' +
          'with Retry-After. People whose second factor is a passkey sign in with it instead.',
        tags: ['Signing in'],
        body: Type.Object(
          {
            email: Type.String({ minLength: 1, maxLength: 320 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
            code: Type.String({
              minLength: 1,
              maxLength: 16,
              description: 'The 6 digits the app shows now.',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SignedInResponse, ...integrationErrors() },
      },
    },
    async (request, reply) => {
      const result = await app.ctx.signIn.signIn(request.body, { address: request.ip });
      request.log.info({ user_id: result.person.id }, 'dashboard sign-in');
      return signedInReply(reply, app.ctx.dashboardCookie, result);
    },
  );
};
