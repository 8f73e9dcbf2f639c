import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, IdString } from '../platform/http/schemas.ts';
import type { ScheduleAction } from '../schedules/service.ts';
import { ScheduleView, scheduleView } from '../schedules/view.ts';
import { BadRequest, clientErrors, NotFound } from '../sessions/client-schemas.ts';

/** What a route that moves a schedule says of itself in the API document. */
interface ScheduleActionDoc {
  operationId: string;
  summary: string;
  description: string;
}

/**
 * POST /schedules/{id}/pause, resume or cancel: the session user pauses, resumes or cancels one of their schedules,
 * also while recurring payments are turned off for the integrator (the schedules set up before still charge). The
 * three differ only in the move and in what their document says.
 */
export function scheduleActionRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: ScheduleAction,
  doc: ScheduleActionDoc,
): void {
  const { schedules } = app.ctx;

  app.post(
    `/schedules/:schedule_id/${action}`,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: doc.description,
        tags: ['Recurring rent'],
        params: Type.Object({
          schedule_id: IdString('sch', 'a schedule'),
        }),
        response: {
          200: ScheduleView,
          ...clientErrors({
            400: BadRequest,
            404: NotFound,
            409: { ...ErrorResponse, description: 'conflict: the schedule’s status does not allow it.' },
          }),
        },
      },
    },
    async (request) => {
      const { session } = request.client;
      const changed = await schedules.change(
        { integratorId: session.integrator_id, userId: session.user_id },
        request.params.schedule_id,
        action,
        {
          kind: 'tenant',
          userId: session.user_id,
          sessionId: session.id,
          address: request.ip,
          requestId: request.id,
        },
      );
      request.log.info({ schedule_id: changed.id, status: changed.status }, `schedule ${action}`);
      return scheduleView(changed);
    },
  );
}
