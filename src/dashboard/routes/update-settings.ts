import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { settingsFromBody } from '../../integrators/settings.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';
import { PlatformSettingsBody, PlatformSettingsView, platformSettingsView } from '../settings-view.ts';

/** Changes the platform's fees, rent reminders or allowed origins. */
export const updateSettingsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/settings/',
    {
      schema: {
        operationId: 'updateSettings',
        summary: 'Change the platform’s fees, rent reminders or allowed origins',
        description:
          'Only the fields sent change; `fees` and `allowed_origins` replace the whole list. The same rules as ' +
          'the operator’s changes: origins are scheme, host and port only (no wildcards), and in production a fee ' +
          'other than 0 is refused (400 on fees) unless the operator recorded that the platform’s tenants are ' +
          'businesses (business_lets). A refused change changes nothing. Audited (`integrator.update`, naming the ' +
          'person, with the settings before and after). Needs `settings.manage` (admin).',
        tags: ['Settings'],
        body: PlatformSettingsBody,
        response: { 200: PlatformSettingsView, ...integrationErrors() },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      const actor = dashboardActor(request);
      // A role that may not change settings is refused before its request is looked at (the service checks again).
      requirePermission(actor, 'settings.manage');
      const settings = settingsFromBody(request.body);
      const integrator = await app.ctx.integrators.update(integratorId, settings, actor);
      request.log.info({ integrator_id: integrator.id, changed: Object.keys(settings) }, 'settings updated');
      return platformSettingsView(integrator);
    },
  );
};
