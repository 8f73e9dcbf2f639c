import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { ScheduleView, scheduleView } from '../../schedules/view.ts';

/** The integrator's schedules: a user's, newest first. */
export const listSchedulesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { schedules } = app.ctx;

  app.get(
    '/schedules/',
    {
      schema: {
        operationId: 'listSchedules',
        summary: 'List a user’s recurring rent schedules, newest first',
        tags: ['Schedules'],
        querystring: Type.Object({
          user_id: Type.Integer({
            minimum: 1,
            maximum: Number.MAX_SAFE_INTEGER,
            description: 'Your user_id.',
          }),
        }),
        response: {
          200: Type.Object({ schedules: Type.Array(ScheduleView) }, { title: 'ScheduleList' }),
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const { user_id: userId } = request.query;
      const found = await schedules.listForExternalUser(request.integrator.id, userId);
      // Another integrator's user answers exactly as an unknown one.
      if (!found) {
        throw new ServiceError(
          'not_found',
          `No user ${userId}. Send the user_id the user was onboarded with (POST /api/third-party/onboarding/).`,
        );
      }
      return { schedules: found.map(scheduleView) };
    },
  );
};
