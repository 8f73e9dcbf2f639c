import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scheduleActionRoute } from '../schedule-actions.ts';

export const pauseScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  scheduleActionRoute(app, 'pause', {
    operationId: 'pauseSchedule',
    summary: 'Pause one of the user’s schedules',
    description:
      'An active schedule stops charging (a charge waiting to be retried is withdrawn) until resumed; due dates ' +
      'that pass while it is paused are not charged. No body.',
  });
};
