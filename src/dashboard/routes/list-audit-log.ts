import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { OPERATOR_SCOPE } from '../../audit/log.ts';
import { AuditEntrySchema } from '../../audit/schemas.ts';
import { auditEntryView } from '../../audit/view.ts';
import { integrationErrors, pageQuery } from '../../platform/http/schemas.ts';
import { dashboardActor } from '../session-auth.ts';

/** The team's audit log, newest first. */
export const listAuditLogRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/audit-log/',
    {
      schema: {
        operationId: 'listAuditLog',
        summary: 'Your audit log, newest first',
        description:
          'Every change to money, credentials or settings of your platform (the operator’s staff: of the operator) ' +
          'from every surface, and every view of a KYC document. Cursor pagination with `starting_after`. Needs ' +
          '`audit.read` (admin, operator_admin, operator_support).',
        tags: ['Team'],
        querystring: Type.Object({ ...pageQuery('audit_entry') }, { additionalProperties: false }),
        response: {
          200: Type.Object({ data: Type.Array(AuditEntrySchema), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const { limit, starting_after } = request.query;
      const scope = request.dashboard.person.integratorId ?? OPERATOR_SCOPE;
      const page = await app.ctx.audit.list(dashboardActor(request), scope, {
        limit,
        startingAfter: starting_after,
      });
      return { data: page.data.map(auditEntryView), has_more: page.has_more };
    },
  );
};
