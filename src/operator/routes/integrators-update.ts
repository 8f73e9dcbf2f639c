import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IntegratorView, integratorView, UpdateIntegratorBody } from '../../integrators/schemas.ts';
import { settingsFromBody } from '../../integrators/settings.ts';
import { checkWebhookUrl } from '../../webhooks/address.ts';
import { operatorErrors } from '../schemas.ts';

export const updateIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/integrators/:integrator_id',
    {
      schema: {
        summary: 'Change an integrator’s settings',
        tags: ['Operator'],
        params: Type.Object({ integrator_id: Type.String({ maxLength: 64 }) }),
        body: UpdateIntegratorBody,
        response: { 200: IntegratorView, ...operatorErrors() },
      },
    },
    async (request) => {
      const settings = settingsFromBody(request.body);
      await checkWebhookUrl(settings.webhook_url, {
        allowPrivate: app.ctx.config.allowPrivateWebhookHosts,
        sandbox: app.ctx.config.serviceEnv === 'sandbox',
      });
      const integrator = await app.ctx.integrators.update(request.params.integrator_id, settings);
      request.log.info(
        { integrator_id: integrator.id, changed: Object.keys(settings) },
        'integrator updated',
      );
      return integratorView(integrator);
    },
  );
};
