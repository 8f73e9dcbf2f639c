import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdString, Timestamp } from '../../platform/http/schemas.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

export const redeliverFailedWebhooksRoute: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.ctx.webhooks;

  app.post(
    '/webhooks/redeliver',
    {
      schema: {
        operationId: 'redeliverFailedWebhooks',
        summary: 'Send again every delivery that failed at or after a time',
        description:
          'E.g. after an integrator’s outage: every delivery that failed for good since `failed_since` (of one ' +
          'integrator, or of all) starts a new round. Endpoints without a URL or disabled by a 410 are skipped.',
        tags: ['Webhooks'],
        body: Type.Object(
          {
            failed_since: {
              ...Timestamp,
              description: 'Deliveries that failed at or after this time (ISO 8601).',
            },
            integrator_id: Type.Optional(
              IdString('int', 'an integrator', { description: 'Only this integrator’s deliveries.' }),
            ),
          },
          {
            examples: [{ failed_since: '2026-03-01T00:00:00Z', integrator_id: 'int_3fQx8LmN2pRs7TvW9yZb1C' }],
          },
        ),
        response: {
          202: Type.Object({
            redelivered: Type.Integer({ description: 'Deliveries now pending again.' }),
          }),
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const { failed_since, integrator_id } = request.body;
      const redelivered = await webhooks.redeliverFailed(new Date(failed_since), integrator_id);
      request.log.info({ failed_since, integrator_id, redelivered }, 'failed webhooks redelivered');
      return reply.code(202).send({ redelivered });
    },
  );
};
