import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { dashboardActor } from '../session-auth.ts';
import { TeamMember, teamMemberView } from '../team-view.ts';

/** The people of the signed-in person's team. */
export const listTeamRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/team/',
    {
      schema: {
        operationId: 'listTeam',
        summary: 'Your team, oldest first (removed people too, for the record)',
        description: 'Needs `team.manage` (admin, operator_admin).',
        tags: ['Team'],
        response: { 200: Type.Object({ data: Type.Array(TeamMember) }), ...integrationErrors() },
      },
    },
    async (request) => {
      const people = await app.ctx.people.list(
        dashboardActor(request),
        request.dashboard.person.integratorId,
      );
      return { data: people.map(teamMemberView) };
    },
  );
};
