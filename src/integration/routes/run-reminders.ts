import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';

/** The sandbox test clock for rent reminders, registered only when SERVICE_ENV=sandbox. */
export const runRemindersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sandbox/run-reminders/',
    {
      schema: {
        operationId: 'runReminders',
        summary: 'Sandbox only: send the rent reminders due as of a date',
        description:
          'Sends your rent_due_soon and rent_overdue webhooks as the hourly run would on `as_of`, and answers how ' +
          'many it sent. Each reminder goes once: one already sent (by an earlier run, at any date) is not sent ' +
          'again. Sends none while your reminder_days_before setting is off (ask the operator). Not present in ' +
          'production.',
        tags: ['Sandbox'],
        body: Type.Object({ as_of: Type.String({ format: 'date', description: 'YYYY-MM-DD.' }) }),
        response: {
          200: Type.Object({ sent: Type.Integer() }, { title: 'RunRemindersResult' }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const sent = await app.ctx.reminders.run(request.body.as_of, request.integrator.id);
      request.log.info({ as_of: request.body.as_of, sent }, 'sandbox rent reminders run');
      return { sent };
    },
  );
};
