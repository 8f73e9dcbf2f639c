import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';
import { PlatformSettingsView, platformSettingsView } from '../settings-view.ts';

/** The settings the platform's admin may change. */
export const getSettingsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/settings/',
    {
      schema: {
        operationId: 'getSettings',
        summary: 'The platform’s settings: fees, rent reminders, allowed origins',
        description:
          'What PATCH /settings/ changes, and (read only) the environment and the business lets declaration the ' +
          'fee rule depends on. Needs `settings.manage` (admin).',
        tags: ['Settings'],
        response: { 200: PlatformSettingsView, ...integrationErrors() },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'settings.manage');
      return platformSettingsView(await app.ctx.integrators.get(integratorId));
    },
  );
};
