import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CreateIntegratorBody, IntegratorView, integratorView } from '../../integrators/schemas.ts';
import { settingsFromBody } from '../../integrators/settings.ts';
import { checkWebhookUrl } from '../../webhooks/address.ts';
import { operatorTokenActor } from '../actor.ts';
import { BadRequest, operatorErrors } from '../schemas.ts';

export const createIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/integrators',
    {
      schema: {
        operationId: 'createIntegrator',
        summary: 'Create an integrator',
        description:
          'A platform that will use rentpay, in this service’s environment (sandbox or production). The answer is ' +
          'the only one with its server token; hand it and the webhook secret to the platform. Settings not sent ' +
          'take their defaults: no webhook URL, no allowed origins, no fees, business_lets false, every feature on, ' +
          'the default rate limits. In production, a fee other than 0 is refused (400 on fees) unless business_lets ' +
          'is true.',
        tags: ['Integrators'],
        body: {
          ...CreateIntegratorBody,
          examples: [
            {
              name: 'Acme Lettings',
              webhook_url: 'https://platform.example/webhooks/rentpay',
              allowed_origins: ['https://platform.example'],
              fees: { card: { percent: '1.45', fixed: '0.00' } },
            },
          ],
        },
        response: {
          201: Type.Object({
            ...IntegratorView.properties,
            server_token: Type.String({ description: 'Shown once; only its hash is stored.' }),
            webhook_secret: Type.String({
              description:
                'The secret webhooks are signed with (whsec_…), shown once. Created without a webhook_url, it lasts ' +
                'until the integrator sets its first URL itself (PUT webhook-endpoint/), which makes and shows a new ' +
                'one; created with a URL, it signs until rotated.',
            }),
          }),
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request, reply) => {
      const settings = settingsFromBody(request.body);
      await checkWebhookUrl(settings.webhook_url, {
        allowPrivate: app.ctx.config.allowPrivateWebhookHosts,
        sandbox: app.ctx.config.serviceEnv === 'sandbox',
      });
      const { integrator, serverToken } = await app.ctx.integrators.create(
        { ...settings, name: settings.name ?? request.body.name },
        operatorTokenActor(request),
      );
      request.log.info({ integrator_id: integrator.id }, 'integrator created');
      return reply.code(201).send({
        ...integratorView(integrator),
        server_token: serverToken,
        webhook_secret: integrator.webhook_secret,
      });
    },
  );
};
