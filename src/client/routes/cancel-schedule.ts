import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scheduleActionRoute } from '../schedule-actions.ts';

export const cancelScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  scheduleActionRoute(app, 'cancel', {
    operationId: 'cancelSchedule',
    summary: 'Cancel one of the user’s schedules',
    description: 'Ends an active or paused schedule for good: it never charges again. No body.',
  });
};
