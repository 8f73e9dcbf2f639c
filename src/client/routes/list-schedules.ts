import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ScheduleView, scheduleView } from '../../schedules/view.ts';
import { clientErrors } from '../../sessions/client-schemas.ts';

/** The session user's recurring rent, of every tenancy. */
export const listSchedulesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { schedules } = app.ctx;
  // With recurring payments turned off for the integrator, no new schedule is set up; the ones set up before still
  // charge, so the tenant can still list, pause, resume and cancel them.

  app.get(
    '/schedules',
    {
      schema: {
        operationId: 'listSchedules',
        summary: 'The user’s schedules of every tenancy, newest first',
        description:
          'Every schedule of the session’s user with this platform, canceled ones included. Also while recurring ' +
          'payments are turned off for the integration: schedules set up before still charge, and can be paused, ' +
          'resumed and canceled.',
        tags: ['Recurring rent'],
        response: {
          200: Type.Object({ schedules: Type.Array(ScheduleView) }),
          ...clientErrors(),
        },
      },
    },
    async (request) => {
      const { session } = request.client;
      return {
        schedules: (await schedules.listForUser(session.integrator_id, session.user_id)).map(scheduleView),
      };
    },
  );
};
