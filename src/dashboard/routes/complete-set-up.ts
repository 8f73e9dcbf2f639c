import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RegistrationResponseJSON } from '../../people/passkeys.ts';
import { FieldValidationError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { SIGNED_OUT, SignedInResponse, signedInReply, WebAuthnResponse } from '../schemas.ts';

/** Sets the password and the second factor, uses up the link, and signs the person in. */
export const completeSetUpRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/setup/',
    {
      config: SIGNED_OUT,
      schema: {
        operationId: 'completeSetUp',
        summary: 'Set up a sign-in: a password and a second factor; signs in',
        description:
          'A password of 12 to 256 characters and exactly one second factor: `totp` (the secret the set-up page ' +
          'was given and the code the app shows now) or `passkey` (the challenge and what the browser created). ' +
          'The link then stops working. Answers like signing in, with the session cookie.',
        tags: ['Signing in'],
        body: Type.Object(
          {
            invite: Type.String({ minLength: 1, maxLength: 100 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
            totp: Type.Optional(
              Type.Object(
                { secret: Type.String({ maxLength: 64 }), code: Type.String({ maxLength: 16 }) },
                { additionalProperties: false },
              ),
            ),
            passkey: Type.Optional(
              Type.Object(
                { challenge_id: Type.String({ maxLength: 64 }), response: WebAuthnResponse },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: SignedInResponse, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request, reply) => {
      const { invite, password, totp, passkey } = request.body;
      if ((totp === undefined) === (passkey === undefined)) {
        throw new FieldValidationError({
          non_field_errors: [
            'Send one second factor: totp (secret and code) or passkey (challenge_id and response).',
          ],
        });
      }
      const factor = totp
        ? { kind: 'totp' as const, secret: totp.secret, code: totp.code.trim() }
        : {
            kind: 'passkey' as const,
            challengeId: passkey!.challenge_id,
            response: passkey!.response as unknown as RegistrationResponseJSON,
          };
      const result = await app.ctx.signIn.completeSetUp(invite, password, factor, {
        address: request.ip,
        requestId: request.id,
      });
      request.log.info({ user_id: result.person.id }, 'dashboard sign-in set up');
      return reply.code(201).send(signedInReply(reply, app.ctx.dashboardCookie, result));
    },
  );
};
