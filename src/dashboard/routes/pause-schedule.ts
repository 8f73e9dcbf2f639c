import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scheduleActionRoute } from '../schedule-actions.ts';

export const pauseScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  scheduleActionRoute(app, 'pause', {
    operationId: 'pauseSchedule',
    summary: 'Pause a schedule: due dates that pass while it is paused are skipped',
  });
};
