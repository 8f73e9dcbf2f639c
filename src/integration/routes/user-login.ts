import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { FieldValidationError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors, Timestamp } from '../../platform/http/schemas.ts';
import type { SessionAmount } from '../../sessions/service.ts';
import { checkPureAmount } from '../../sessions/service.ts';
import { AMOUNT_FORMAT_MESSAGE, PURE_AMOUNT_LIMITS, parsePence } from '../../shared/money.ts';

/** The session's amount from user-login's pure_amount and amount_editable; field errors for what cannot be. */
function sessionAmount(pureAmount: string | undefined, editable: boolean | undefined): SessionAmount {
  if (pureAmount === undefined) {
    if (editable === false) {
      throw new FieldValidationError({
        amount_editable: ['Send pure_amount to fix the amount; without it the tenant chooses the amount.'],
      });
    }
    return { purePence: null, editable: true };
  }
  const purePence = parsePence(pureAmount);
  if (purePence === undefined) throw new FieldValidationError({ pure_amount: [AMOUNT_FORMAT_MESSAGE] });
  checkPureAmount(purePence);
  return { purePence, editable: editable === true };
}

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
          'by `payment_reference`, else the primary active tenancy, else the newest active one. ' +
          'Send `pure_amount` to fix the amount the tenant pays (your server decides it; the browser cannot change ' +
          'it), with `amount_editable: true` to only pre-fill it.',
        tags: ['Sessions'],
        body: Type.Object({
          // No minLength: an empty string fails the format with one message, as at onboarding.
          email: Type.String({ format: 'email', maxLength: 254 }),
          payment_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
          pure_amount: Type.Optional(
            Type.String({
              description:
                `The rent to pay in this session, in pounds before the fee (${PURE_AMOUNT_LIMITS}). The payment page ` +
                'shows it read-only and the Client API refuses any other amount, unless `amount_editable` is true. ' +
                'Without it the tenant chooses the amount.',
              examples: ['1200.00'],
            }),
          ),
          amount_editable: Type.Optional(
            Type.Boolean({
              description:
                'true: `pure_amount` only pre-fills the amount and the tenant may change it. false (the default when ' +
                '`pure_amount` is sent): the amount is fixed. false without `pure_amount` is refused.',
            }),
          ),
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
      const result = await app.ctx.sessions.login(
        request.integrator.id,
        request.body.email,
        request.body.payment_reference,
        sessionAmount(request.body.pure_amount, request.body.amount_editable),
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
