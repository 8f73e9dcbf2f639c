import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AuditEntrySchema } from '../../audit/schemas.ts';
import { auditEntryView } from '../../audit/view.ts';
import { integrationErrors, pageQuery } from '../../platform/http/schemas.ts';
import { serverTokenActor } from '../actor.ts';

const ListQuery = Type.Object({ ...pageQuery('audit_entry') }, { additionalProperties: false });

/** Your audit log, newest first: who changed money, credentials or settings of your integrator. */
export const listAuditLogRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { audit } = app.ctx;

  app.get(
    '/audit-log/',
    {
      schema: {
        operationId: 'listAuditLog',
        summary: 'List your audit log, newest first',
        description:
          'Every change to money, credentials or settings of your integrator (refunds, schedule changes, token and ' +
          'webhook changes, onboarding, the operator’s changes to your settings), and every view of a KYC document: ' +
          'who, what, when, from where. Each entry carries the hash of the one before it. Cursor pagination: pass ' +
          'the last `audit_entry_id` of a page as `starting_after` for the next.',
        tags: ['Authentication'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(AuditEntrySchema), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const { limit, starting_after } = request.query;
      const page = await audit.list(serverTokenActor(request), request.integrator.id, {
        limit,
        startingAfter: starting_after,
      });
      return { data: page.data.map(auditEntryView), has_more: page.has_more };
    },
  );
};
