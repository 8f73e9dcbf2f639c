import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../platform/errors.ts';
import { ErrorResponse, IdString, integrationErrors } from '../platform/http/schemas.ts';
import type { ScheduleAction } from '../schedules/service.ts';
import { ScheduleView, scheduleView } from '../schedules/view.ts';
import { serverTokenActor } from './actor.ts';

const SCHEDULE_ID = /^sch_[A-Za-z0-9]{1,60}$/;

/** The 404 for a schedule that is unknown or another integrator's, alike. */
function noSchedule(scheduleId: string): ServiceError {
  return new ServiceError(
    'not_found',
    `No schedule ${scheduleId}. List a user's schedules and their ids with ` +
      'GET /api/third-party/schedules/?user_id=<your user_id>.',
  );
}

/** What a route that moves a schedule says of itself in the API document. */
interface ScheduleActionDoc {
  operationId: string;
  summary: string;
}

/**
 * POST /schedules/{id}/pause/, resume/ or cancel/: the integrator pauses, resumes or cancels one of its schedules.
 * The three differ only in the move and in what their document says.
 */
export function scheduleActionRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: ScheduleAction,
  doc: ScheduleActionDoc,
): void {
  // The event the move records (webhook), named in the description.
  const event = action === 'cancel' ? 'schedule_canceled' : `schedule_${action}d`;
  const { schedules } = app.ctx;

  app.post(
    `/schedules/:schedule_id/${action}/`,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description:
          'Answers the Schedule as it is afterwards, or 409 when the move is not allowed from its status. Records ' +
          `a ${event} event (webhook).`,
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
        .change({ integratorId: request.integrator.id }, scheduleId, action, serverTokenActor(request))
        .catch((error: unknown) => {
          // The service's 404 is shared with the Client API; here it names how to find the id.
          throw error instanceof ServiceError && error.code === 'not_found' ? noSchedule(scheduleId) : error;
        });
      request.log.info({ schedule_id: changed.id, status: changed.status }, `schedule ${action}`);
      return scheduleView(changed);
    },
  );
}
