import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CreatedIntegratorView,
  CreateIntegratorBody,
  createdIntegratorView,
} from '../../integrators/schemas.ts';
import { createIntegrator } from '../../webhooks/new-integrator.ts';
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
          201: CreatedIntegratorView,
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request, reply) => {
      const created = await createIntegrator(
        app.ctx.integrators,
        app.ctx.config,
        request.body,
        operatorTokenActor(request),
      );
      request.log.info({ integrator_id: created.integrator.id }, 'integrator created');
      return reply.code(201).send(createdIntegratorView(created));
    },
  );
};
