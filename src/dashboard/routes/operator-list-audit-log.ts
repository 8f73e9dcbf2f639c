import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { OPERATOR_SCOPE } from '../../audit/log.ts';
import { AuditEntrySchema } from '../../audit/schemas.ts';
import { auditEntryView } from '../../audit/view.ts';
import { pageQuery } from '../../platform/http/schemas.ts';
import { OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

/** The whole audit log: every integrator's chain and the operator's own, newest first. */
export const operatorListAuditLogRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/audit-log/',
    {
      schema: {
        operationId: 'operatorListAuditLog',
        summary: 'The whole audit log, newest first',
        description:
          'Every audit entry of every integrator and of the operator’s own actions, newest first (by time, then ' +
          'id), each with its `scope`. Cursor pagination with `starting_after` (keep the same filters). Needs ' +
          '`audit.read` (operator_admin, operator_support).',
        tags: [OPERATOR_TAG],
        querystring: Type.Object(
          {
            ...pageQuery('audit_entry'),
            integrator_id: Type.Optional(
              Type.String({
                maxLength: 64,
                pattern: `^(int_[A-Za-z0-9]+|${OPERATOR_SCOPE})$`,
                description: 'Only this integrator’s entries (int_…), or `operator` for the operator’s own.',
              }),
            ),
            action: Type.Optional(
              Type.String({
                maxLength: 100,
                pattern: '^[a-z_]+\\.[a-z_]+$',
                description:
                  'Only entries of this action, e.g. `integrator.suspend` or `payout_run.confirm`.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(
              Type.Object({
                ...AuditEntrySchema.properties,
                scope: Type.String({ description: 'Its chain: the integrator’s id, or `operator`.' }),
              }),
            ),
            has_more: Type.Boolean(),
          }),
          ...operatorConsoleErrors(),
        },
      },
    },
    async (request) => {
      const { limit, starting_after, integrator_id, action } = request.query;
      const page = await app.ctx.audit.listAll(dashboardOperator(request), {
        limit,
        startingAfter: starting_after,
        scope: integrator_id,
        action,
      });
      return {
        data: page.data.map((entry) => ({ ...auditEntryView(entry), scope: entry.scope })),
        has_more: page.has_more,
      };
    },
  );
};
