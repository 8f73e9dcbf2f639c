import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, FieldErrorsResponse } from '../../../platform/http/schemas.ts';
import { WALLET_METHODS } from '../../../shared/vocabulary.ts';
import type { SandboxProcessor } from '../processor.ts';
import { CardView } from './tokens.ts';

/** The sandbox wallet sheet's (Apple Pay, Google Pay) token: what the real sheet hands the page. */
export function sandboxWalletRoute(processor: SandboxProcessor): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/sandbox/wallet/tokens',
      {
        schema: {
          summary: 'Sandbox: a wallet token, as the Apple Pay or Google Pay sheet would give',
          tags: ['Sandbox'],
          body: Type.Object({
            wallet: Type.Enum(WALLET_METHODS),
            outcome: Type.Enum(['authorise', 'fail']),
          }),
          response: {
            201: Type.Object({ token: Type.String(), card: CardView }),
            400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await processor.tokeniseWallet(request.body.wallet, request.body.outcome)),
    );
  };
}
