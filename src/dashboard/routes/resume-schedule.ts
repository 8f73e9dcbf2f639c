import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scheduleActionRoute } from '../schedule-actions.ts';

export const resumeScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  scheduleActionRoute(app, 'resume', {
    operationId: 'resumeSchedule',
    summary: 'Resume a paused schedule from its next due date after today',
  });
};
