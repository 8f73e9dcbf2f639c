import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import type { ScheduleAction } from '../../schedules/service.ts';
import { ScheduleView, scheduleView } from '../../schedules/view.ts';

const SCHEDULE_ID = /^sch_[A-Za-z0-9]{1,60}$/;

/** The 404 for a schedule that is unknown or another integrator's, alike. */
function noSchedule(scheduleId: string): ServiceError {
  return new ServiceError(
    'not_found',
    `No schedule ${scheduleId}. List a user's schedules and their ids with ` +
      'GET /api/third-party/schedules/?user_id=<your user_id>.',
  );
}

const SUMMARIES: Record<ScheduleAction, string> = {
  pause: 'Pause a schedule: due dates that pass while it is paused are skipped',
  resume: 'Resume a paused schedule from its next due date after today',
  cancel: 'Cancel a schedule for good',
};

/** The integrator's schedules: it lists a user's schedules and pauses, resumes or cancels one. */
export const integrationScheduleRoutes: FastifyPluginAsyncTypebox = async (app) => {
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

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    app.post(
      `/schedules/:schedule_id/${action}/`,
      {
        schema: {
          operationId: `${action}Schedule`,
          summary: SUMMARIES[action],
          description:
            'Answers the Schedule as it is afterwards, or 409 when the move is not allowed from its status. Records ' +
            `a schedule_${action === 'cancel' ? 'canceled' : `${action}d`} event (webhook).`,
          tags: ['Schedules'],
          params: Type.Object({ schedule_id: IdString('sch', 'a schedule') }),
          response: { 200: ScheduleView, ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }) },
        },
      },
      async (request) => {
        const { schedule_id: scheduleId } = request.params;
        // An id that cannot be one of ours is simply unknown; another integrator's is too.
        if (!SCHEDULE_ID.test(scheduleId)) throw noSchedule(scheduleId);
        const changed = await schedules
          .change({ integratorId: request.integrator.id }, scheduleId, action)
          .catch((error: unknown) => {
            // The service's 404 is shared with the Client API; here it names how to find the id.
            throw error instanceof ServiceError && error.code === 'not_found'
              ? noSchedule(scheduleId)
              : error;
          });
        request.log.info({ schedule_id: changed.id, status: changed.status }, `schedule ${action}`);
        return scheduleView(changed);
      },
    );
  }
};
