import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../platform/http/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { SessionView, sessionView } from '../schemas.ts';

export const getSessionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/session/:session_id/',
    {
      schema: {
        operationId: 'getSession',
        summary: 'Read a session: user, tenancy, bank account and payments',
        tags: ['Sessions'],
        params: Type.Object({ session_id: Type.String({ maxLength: 64 }) }),
        response: { 200: SessionView, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const detail = await app.ctx.sessions.detail(request.integrator.id, request.params.session_id);
      // Another integrator's session answers exactly as an unknown one.
      if (!detail) throw new ApiError('not_found', `No session ${request.params.session_id}.`);
      return sessionView(detail, app.ctx.clock.now());
    },
  );
};
