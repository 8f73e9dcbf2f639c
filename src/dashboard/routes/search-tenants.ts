import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';
import { TenantSummaryView, tenantSummaryView } from '../tenant-views.ts';

/** The platform's tenants, newest first, or those a search finds. */
export const searchTenantsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tenants/',
    {
      schema: {
        operationId: 'searchTenants',
        summary: 'Find a tenant by email, name, payment reference or user_id',
        description:
          '`q` matches the start of an email, of a name (first name and last name, or the last name alone) or of a ' +
          'payment reference of one of their tenancies, in any case, or a user_id exactly; without `q`, every ' +
          'tenant. Newest first; cursor pagination with `starting_after` (the last user_id of a page). Needs ' +
          '`payments.read`.',
        tags: ['Tenants'],
        querystring: Type.Object(
          {
            q: Type.Optional(Type.String({ maxLength: 254, description: 'What to look for.' })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            starting_after: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: Number.MAX_SAFE_INTEGER,
                description: 'A user_id: the page starts with the tenant listed right after it.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(TenantSummaryView), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const { q, limit, starting_after } = request.query;
      const page = await app.ctx.tenants.search(integratorId, { q, limit, startingAfter: starting_after });
      return { data: page.rows.map(tenantSummaryView), has_more: page.has_more };
    },
  );
};
