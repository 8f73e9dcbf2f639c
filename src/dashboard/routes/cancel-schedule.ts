import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scheduleActionRoute } from '../schedule-actions.ts';

export const cancelScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  scheduleActionRoute(app, 'cancel', {
    operationId: 'cancelSchedule',
    summary: 'Cancel a schedule for good',
  });
};
