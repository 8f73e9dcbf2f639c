import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { SignedInResponse, signedInView } from '../schemas.ts';

/** Who is signed in. */
export const getMeRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me/',
    {
      schema: {
        operationId: 'getMe',
        summary: 'Who is signed in, what they may do, and the CSRF token',
        tags: ['Signing in'],
        response: { 200: SignedInResponse, ...integrationErrors() },
      },
    },
    async (request) => signedInView(request.dashboard.person, request.dashboard.session),
  );
};
