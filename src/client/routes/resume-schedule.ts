import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scheduleActionRoute } from '../schedule-actions.ts';

export const resumeScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  scheduleActionRoute(app, 'resume', {
    operationId: 'resumeSchedule',
    summary: 'Resume one of the user’s schedules',
    description:
      'A paused schedule charges again from its next due date after today (409 if the tenancy is not active or no ' +
      'due date is left). No body.',
  });
};
