import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { textProblem } from '../../onboarding/validate.ts';
import { FieldValidationError } from '../../platform/http/errors.ts';
import { ErrorResponse, integrationErrors, Timestamp } from '../../platform/http/schemas.ts';

export const userLoginRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/user-login/',
    {
      schema: {
        operationId: 'userLogin',
        summary: 'Open a payment session for a user',
        description:
          'Creates a new session for the user with this email and returns a short-lived user session token for the ' +
          'payment page (`/third-party?token=…&session_id=…`) or the SDK (`authToken`). The token is valid for 15 ' +
          'minutes and the session for 30; after that, call user-login again. The session pays for the tenancy named ' +
          'by `payment_reference`, else the primary active tenancy, else the newest active one.',
        tags: ['Sessions'],
        body: Type.Object({
          // No minLength: an empty string fails the format with one message, as at onboarding.
          email: Type.String({ format: 'email', maxLength: 254 }),
          payment_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
        }),
        response: {
          200: Type.Object({
            token: Type.String({
              description: 'User session token: safe for the browser, valid for this user only.',
            }),
            session_id: Type.String(),
            expires_at: { ...Timestamp, description: 'When the token expires.' },
            session_expires_at: { ...Timestamp, description: 'When the session expires.' },
          }),
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request) => {
      // Text PostgreSQL cannot take (NUL, unpaired surrogates) can name no tenancy: a field error, not a 500.
      const problem =
        request.body.payment_reference === undefined
          ? undefined
          : textProblem(request.body.payment_reference);
      if (problem) throw new FieldValidationError({ payment_reference: [problem] });
      const result = await app.ctx.sessions.login(
        request.integrator.id,
        request.body.email,
        request.body.payment_reference,
      );
      return {
        token: result.token,
        session_id: result.sessionId,
        expires_at: result.tokenExpiresAt.toISOString(),
        session_expires_at: result.sessionExpiresAt.toISOString(),
      };
    },
  );
};
