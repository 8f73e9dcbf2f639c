import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, IdString, integrationErrors } from '../platform/http/schemas.ts';
import type { ScheduleAction } from '../schedules/service.ts';
import { dashboardActor, dashboardIntegrator } from './session-auth.ts';
import { DashboardScheduleView, dashboardScheduleView } from './tenant-views.ts';

const PAST: Record<ScheduleAction, string> = { pause: 'paused', resume: 'resumed', cancel: 'canceled' };

/**
 * POST /schedules/{id}/pause/, resume/ or cancel/ from a tenant's page: the schedules service's move, as the
 * Integration API makes it (the same rules and answers), by the signed-in person with the reason they give.
 */
export function scheduleActionRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: ScheduleAction,
  doc: { operationId: string; summary: string },
): void {
  app.post(
    `/schedules/:schedule_id/${action}/`,
    {
      schema: {
        ...doc,
        description:
          'Answers the schedule as it is afterwards, or 409 when the move is not allowed from its status. The ' +
          `reason is kept with the schedule${action === 'resume' ? ' (a resume clears the one kept)' : ''}, shown on ` +
          `the tenant’s page and in the audit log (\`schedule.${action}\`, naming the person). Records a ` +
          `schedule_${PAST[action]} event (webhook). Needs \`schedules.manage\`.`,
        tags: ['Tenants'],
        params: Type.Object({ schedule_id: IdString('sch', 'a schedule') }),
        body: Type.Object(
          {
            reason: Type.String({
              minLength: 1,
              maxLength: 500,
              description: `Why it is ${PAST[action]}, in a few words (1 to 500 characters).`,
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: DashboardScheduleView,
          ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const changed = await app.ctx.schedules.change(
        { integratorId: dashboardIntegrator(request) },
        request.params.schedule_id,
        action,
        dashboardActor(request),
        request.body.reason,
      );
      request.log.info({ schedule_id: changed.id, status: changed.status }, `schedule ${action}`);
      return dashboardScheduleView(changed);
    },
  );
}
