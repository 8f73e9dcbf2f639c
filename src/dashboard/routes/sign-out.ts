import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors, optionalBody } from '../../platform/http/schemas.ts';
import { clearSessionCookie } from '../session-auth.ts';

/** Signing out: this session, or every session of the person. */
export const signOutRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sign-out/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'signOut',
        summary: 'Sign out (here, or everywhere)',
        description:
          'Ends this session and clears its cookie; with `everywhere: true`, every session of yours on every ' +
          'browser ends too.',
        tags: ['Signing in'],
        body: Type.Object(
          { everywhere: Type.Optional(Type.Boolean({ default: false })) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...integrationErrors() },
      },
    },
    async (request, reply) => {
      const { session, person } = request.dashboard;
      if (request.body.everywhere) await app.ctx.dashboardSessions.endAll(person.id);
      else await app.ctx.dashboardSessions.end(session.id);
      clearSessionCookie(reply, app.ctx.dashboardCookie);
      return reply.code(204).send(null);
    },
  );
};
