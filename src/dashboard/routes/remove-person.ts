import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor } from '../session-auth.ts';
import { PersonParams, TeamMember, teamMemberView } from '../team-view.ts';

/** Removes a person from the team: their sessions and invites end. */
export const removePersonRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/team/:user_id/',
    {
      schema: {
        operationId: 'removePerson',
        summary: 'Remove a person from your team',
        description:
          'They are signed out everywhere and their set-up link stops working; they stay on record in the audit ' +
          'log. The team’s only admin cannot be removed. Needs `team.manage`.',
        tags: ['Team'],
        params: PersonParams,
        response: { 200: TeamMember, ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }) },
      },
    },
    async (request) =>
      teamMemberView(await app.ctx.people.remove(dashboardActor(request), request.params.user_id)),
  );
};
