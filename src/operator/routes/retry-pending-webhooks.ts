import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdString } from '../../platform/http/schemas.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

export const retryPendingWebhooksRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.post(
    '/webhooks/retry-pending',
    {
      schema: {
        operationId: 'retryPendingWebhooks',
        summary: 'Send every pending delivery now',
        description:
          'After a receiver’s outage: every delivery waiting for its next scheduled attempt (of one integrator, or ' +
          'of all) is attempted now, with the same `webhook-id`, instead of after the rest of its retry schedule. ' +
          'An attempt already under way is left to end; if it fails, its next attempt is made at once instead of on the ' +
          'schedule. Endpoints without a URL or disabled by a 410 are skipped.',
        tags: ['Webhooks'],
        body: Type.Object(
          {
            integrator_id: Type.Optional(
              IdString('int', 'an integrator', { description: 'Only this integrator’s deliveries.' }),
            ),
          },
          // An unknown member (a misspelt integrator_id) must not widen the retry to every integrator.
          { additionalProperties: false, examples: [{ integrator_id: 'int_3fQx8LmN2pRs7TvW9yZb1C' }, {}] },
        ),
        response: {
          202: Type.Object({
            count: Type.Integer({
              description:
                'Deliveries whose next attempt is now, and attempts under way that will retry at once.',
            }),
          }),
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const { integrator_id } = request.body;
      const count = await webhooks.retryPending(integrator_id);
      request.log.info({ integrator_id, count }, 'pending webhooks retried now');
      return reply.code(202).send({ count });
    },
  );
};
