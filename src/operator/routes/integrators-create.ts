import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CreateIntegratorBody, IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { settingsFromBody } from '../../integrators/settings.ts';
import { checkWebhookUrl } from '../../webhooks/address.ts';
import { operatorErrors } from '../schemas.ts';

export const createIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/integrators',
    {
      schema: {
        summary: 'Create an integrator',
        tags: ['Operator'],
        body: CreateIntegratorBody,
        response: {
          201: Type.Object({
            ...IntegratorView.properties,
            server_token: Type.String({ description: 'Shown once; only its hash is stored.' }),
            webhook_secret: Type.String(),
          }),
          ...operatorErrors(),
        },
      },
    },
    async (request, reply) => {
      const settings = settingsFromBody(request.body);
      await checkWebhookUrl(settings.webhook_url, {
        allowPrivate: app.ctx.config.allowPrivateWebhookHosts,
        sandbox: app.ctx.config.serviceEnv === 'sandbox',
      });
      const { integrator, serverToken } = await app.ctx.integrators.create({
        ...settings,
        name: settings.name ?? request.body.name,
      });
      request.log.info({ integrator_id: integrator.id }, 'integrator created');
      return reply.code(201).send({
        ...integratorView(integrator),
        server_token: serverToken,
        webhook_secret: integrator.webhook_secret,
      });
    },
  );
};
