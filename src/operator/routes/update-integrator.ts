import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IntegratorView, integratorView, UpdateIntegratorBody } from '../../integrators/schemas.ts';
import { settingsFromBody } from '../../integrators/settings.ts';
import { checkWebhookUrl } from '../../webhooks/address.ts';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, IntegratorParams, NotFound, operatorErrors } from '../schemas.ts';

export const updateIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/integrators/:integrator_id',
    {
      schema: {
        operationId: 'updateIntegrator',
        summary: 'Change an integrator’s settings',
        description:
          'Only the fields sent change. `fees` and `allowed_origins` replace the whole list; `features` changes the ' +
          'features sent. webhook_url null removes the URL. A change reaches every node at once. In production, the ' +
          'settings the integrator would have decide: a fee other than 0 without business_lets true is refused (400 ' +
          'on fees, or on business_lets when the change turns it off), and a refused change changes nothing.',
        tags: ['Integrators'],
        params: IntegratorParams,
        body: {
          ...UpdateIntegratorBody,
          examples: [
            {
              fees: {
                card: { percent: '1.45', fixed: '0.00' },
                apple_pay: { percent: '1.45', fixed: '0.00' },
              },
              features: { apms: false },
              rate_limit_per_second: 20,
            },
          ],
        },
        response: { 200: IntegratorView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) => {
      const settings = settingsFromBody(request.body);
      await checkWebhookUrl(settings.webhook_url, {
        allowPrivate: app.ctx.config.allowPrivateWebhookHosts,
        sandbox: app.ctx.config.serviceEnv === 'sandbox',
      });
      const integrator = await app.ctx.integrators.update(
        request.params.integrator_id,
        settings,
        operatorTokenActor(request),
      );
      request.log.info(
        { integrator_id: integrator.id, changed: Object.keys(settings) },
        'integrator updated',
      );
      return integratorView(integrator);
    },
  );
};
