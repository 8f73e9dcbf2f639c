import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { FieldValidationError } from '../../../platform/errors.ts';
import { ErrorResponse, FieldErrorsResponse } from '../../../platform/http/schemas.ts';
import { cardErrors, type SandboxProcessor } from '../processor.ts';

const CardBody = Type.Object({
  number: Type.String({ minLength: 1, maxLength: 30 }),
  exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
  exp_year: Type.Integer({ minimum: 2000, maximum: 2100 }),
  cvc: Type.String({ minLength: 1, maxLength: 4 }),
});

export const CardView = Type.Object({
  brand: Type.String(),
  last4: Type.String(),
  exp_month: Type.Integer(),
  exp_year: Type.Integer(),
});

/** The sandbox acquirer's tokenisation endpoint: the page posts card data here, never to our core. */
export function sandboxTokensRoute(processor: SandboxProcessor): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/sandbox/tokens',
      {
        schema: {
          summary: 'Sandbox: tokenise a test card',
          tags: ['Sandbox'],
          body: CardBody,
          response: {
            201: Type.Object({ token: Type.String(), card: CardView }),
            400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          },
        },
      },
      async (request, reply) => {
        const errors = cardErrors(request.body, app.ctx.clock.now());
        if (Object.keys(errors).length > 0) throw new FieldValidationError(errors);
        return reply.code(201).send(await processor.tokenise(request.body));
      },
    );
  };
}
