import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';

/**
 * The sandbox test clock, registered only when SERVICE_ENV=sandbox: everything of the calling
 * integrator's schedules that is due as of a date, charged in this request.
 */
export const runSchedulesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sandbox/run-schedules/',
    {
      schema: {
        operationId: 'runSchedules',
        summary: 'Sandbox only: run every due recurring charge as of a date',
        description:
          'Reaches the due dates of your schedules up to `as_of` (skipping those of paused schedules) and makes every ' +
          'charge due by then, retries included, as if `as_of` were today. Answers how many attempts succeeded, how ' +
          'many failed (with charges left waiting for their tenant past their confirm-by day) and how many now ' +
          'wait for their tenant to authenticate them. Not present in production.',
        tags: ['Sandbox'],
        body: Type.Object({ as_of: Type.String({ format: 'date', description: 'YYYY-MM-DD.' }) }),
        response: {
          200: Type.Object(
            {
              charged: Type.Integer(),
              failed: Type.Integer(),
              waiting: Type.Integer({
                description:
                  'Charges the tenant’s bank wants them to authenticate: each waits for them (payment_action_required).',
              }),
            },
            { title: 'RunSchedulesResult' },
          ),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const result = await app.ctx.scheduler.runAsOf(request.integrator.id, request.body.as_of);
      request.log.info({ as_of: request.body.as_of, ...result }, 'sandbox schedules run');
      return result;
    },
  );
};
