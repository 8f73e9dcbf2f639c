import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PaymentView, paymentView } from '../../payments/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import { SessionView, sessionView } from '../../sessions/schemas.ts';

const SESSION_ID = /^[A-Za-z0-9_]{1,64}$/;

/** The session query: the session (user, tenancy, documents) with the payments made in it. */
const SessionQueryView = Type.Object(
  {
    ...SessionView.properties,
    payments: Type.Array(PaymentView, { description: 'Payments made in this session, oldest first.' }),
  },
  { title: 'Session' },
);

export const getSessionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/session/:session_id/',
    {
      schema: {
        operationId: 'getSession',
        summary: 'Read a session: user, tenancy, bank account and payments',
        tags: ['Sessions'],
        params: Type.Object({ session_id: IdString('ses', 'a session') }),
        response: { 200: SessionQueryView, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const { session_id: sessionId } = request.params;
      // An id that cannot be one of ours (too long, or text PostgreSQL refuses, such as NUL) is simply unknown.
      const [detail, payments] = SESSION_ID.test(sessionId)
        ? await Promise.all([
            app.ctx.sessions.detail(request.integrator.id, sessionId),
            app.ctx.payments.inSession(sessionId),
          ])
        : [undefined, []];
      // Another integrator's session answers exactly as an unknown one (its payments, read alongside, are dropped).
      if (!detail) {
        throw new ServiceError(
          'not_found',
          `No session ${sessionId}. Use a session_id that user-login returned; a session is visible only to the ` +
            'integrator that opened it.',
        );
      }
      return { ...sessionView(detail, app.ctx.clock.now()), payments: payments.map(paymentView) };
    },
  );
};
