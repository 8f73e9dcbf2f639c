import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';
import { TenantView, tenantView, UserIdParams } from '../tenant-views.ts';

/** A tenant's page: profile, tenancies with what they owe, schedules, saved cards and documents. */
export const getTenantRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tenants/:user_id/',
    {
      schema: {
        operationId: 'getTenant',
        summary: 'A tenant: profile, tenancies, schedules, saved cards and documents',
        description:
          'Each tenancy with its arrears, days overdue and next due date today; schedules with why they were ' +
          'paused or canceled; saved cards as brand, last 4 digits and expiry only; documents (agreements and ' +
          'KYC) as what they are and whether they can be opened, never their contents. Needs `payments.read`.',
        tags: ['Tenants'],
        params: UserIdParams,
        response: { 200: TenantView, ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const { user_id: userId } = request.params;
      const record = await app.ctx.tenants.get(integratorId, userId);
      // Another platform's tenant answers exactly as an unknown one.
      if (!record) throw new ServiceError('not_found', `No tenant with user_id ${userId}.`);
      return tenantView(record);
    },
  );
};
