import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor } from '../session-auth.ts';
import { PersonParams, TeamMember, teamMemberView } from '../team-view.ts';

/** Gives a person of the team another role. */
export const setPersonRoleRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/team/:user_id/role/',
    {
      schema: {
        operationId: 'setPersonRole',
        summary: 'Change a person’s role',
        description: 'The team’s only admin cannot be given another role. Needs `team.manage`.',
        tags: ['Team'],
        params: PersonParams,
        body: Type.Object({ role: Type.String({ maxLength: 32 }) }, { additionalProperties: false }),
        response: { 200: TeamMember, ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }) },
      },
    },
    async (request) =>
      teamMemberView(
        await app.ctx.people.setRole(dashboardActor(request), request.params.user_id, request.body.role),
      ),
  );
};
