import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CreatedIntegratorView,
  CreateIntegratorBody,
  createdIntegratorView,
} from '../../integrators/schemas.ts';
import { createIntegrator } from '../../webhooks/new-integrator.ts';
import { OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

/** A new integrator, as the Operator API makes one, audited as the person's. */
export const operatorCreateIntegratorRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/operator/integrators/',
    {
      schema: {
        operationId: 'operatorCreateIntegrator',
        summary: 'Create an integrator',
        description:
          'A platform that will use rentpay, in this service’s environment, with the same settings and rules as the ' +
          'Operator API’s createIntegrator (in production a fee other than 0 needs business_lets). The answer is the ' +
          'only one with its server token and webhook secret: hand them to the platform. Needs ' +
          '`integrators.manage` (operator_admin).',
        tags: [OPERATOR_TAG],
        body: CreateIntegratorBody,
        response: { 201: CreatedIntegratorView, ...operatorConsoleErrors() },
      },
    },
    async (request, reply) => {
      const created = await createIntegrator(
        app.ctx.integrators,
        app.ctx.config,
        request.body,
        dashboardOperator(request),
      );
      return reply.code(201).send(createdIntegratorView(created));
    },
  );
};
